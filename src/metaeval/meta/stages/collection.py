"""Stage ``collection``: Table 1 of Sakai (2007a, 2007b) -- the statistics of the collection -- and the
preferred ranks (Sakai 2007a, Tables 7-9), computed by the tables job from the labelled collection."""

from __future__ import annotations

from ...stages import Output, StageInfo
from .cite import SAKAI_A, SAKAI_B

STAGE = StageInfo(
    "collection", "tables",
    outputs=(
        Output("collection", "table", "collection",
               "Statistics of the collection: topics, mean number of relevant documents per topic "
               "(in total and per relevance level) and runs used", f"Table 1 of {SAKAI_A} / Table 1 of {SAKAI_B}",
               columns=("topic", "R", "R(L1)...", "runs"), paper_order=1),
        Output("preferred_rank", "table", "collection",
               "The maximum preferred rank among the runs and the number of relevant documents at "
               "or above it per relevance level (total in parentheses)", f"Tables 7-9 of {SAKAI_A}",
               columns=("topic", "run", "max_rp", "level", "count", "total"), paper_order=10),
        Output("collection", "table", "summary", "Statistics of the collections",
               f"Table 1 of {SAKAI_A} / Table 1 of {SAKAI_B}", stages=("summary",),
               columns=("collection", "topics", "R", "R(L1)...", "runs"), source="collection",
               build="metaeval.report.summary:build_collection"),
    ))
