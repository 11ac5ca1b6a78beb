"""Print pip constraints pinning the scientific libraries at pyproject.toml's lower bounds
(``numpy>=X`` -> ``numpy==X``), for the CI step that installs the oldest supported set
(.ci/run, "lower bounds").  The bounds are read from pyproject.toml, so the step tests what the
package declares; the other dependencies resolve to what pip picks.

    python3 .ci/lower_bounds.py > /tmp/lower.txt && pip install -c /tmp/lower.txt -e ".[test]"
"""

import re
import sys
import tomllib
from pathlib import Path

#: the libraries that decide the numbers and figures (the bounds CI verifies)
CHECKED = ("numpy", "pandas", "scipy", "matplotlib")

project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
bounds = {}
for dep in project["dependencies"]:
    m = re.fullmatch(r"\s*([A-Za-z0-9_.-]+)\s*>=\s*([0-9][0-9A-Za-z.]*)\s*", dep.split(";")[0])
    if m:
        bounds[m[1].lower()] = m[2]
missing = [n for n in CHECKED if n not in bounds]
if missing:
    sys.exit(f"lower_bounds: no '>=' bound in pyproject.toml for {', '.join(missing)}")
print("\n".join(f"{n}=={bounds[n]}" for n in CHECKED))
