# Adapter: rule report -> `snakemake --report` on this workflow with the same (validated) config.
import os
import subprocess
import sys
import tempfile

import yaml

with open(snakemake.log[0], "w") as log, tempfile.TemporaryDirectory() as tmp:
    cfg = os.path.join(tmp, "config.yaml")
    with open(cfg, "w") as fh:
        yaml.safe_dump(dict(snakemake.config), fh, sort_keys=False)
    cmd = [sys.executable, "-m", "snakemake", "-s", snakemake.params.snakefile, "--directory",
           os.getcwd(), "--configfile", cfg, "--nolock", "--report", snakemake.output.html]
    r = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT)
    if r.returncode:
        sys.exit(f"snakemake --report failed ({r.returncode}); see {snakemake.log[0]}")
