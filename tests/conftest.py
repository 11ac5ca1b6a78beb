from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
WWW4 = SHARED / "data" / "ntcir-www4"
DL19 = SHARED / "data" / "trec-dl19-passage"
PAPERS = SHARED / "papers"


@pytest.fixture(scope="session")
def shared() -> Path:
    if not SHARED.is_dir():
        pytest.fail(f"../shared is missing (expected at {SHARED}); CI provides it beside the project")
    return SHARED
