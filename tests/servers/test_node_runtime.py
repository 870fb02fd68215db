"""The nodejs server runs the Node.js its lockfile pins (the `node` npm package), locally and in its image, and
says so; the previous LTS stays a variant from the same lockfile (the alias `node24`), and the machine's
Node.js 20 a variant labelled end-of-life."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

NODEJS = Path(__file__).resolve().parents[2] / "servers" / "nodejs"


def test_the_manifest_runs_and_names_the_node_the_lockfile_pins() -> None:
    pinned = json.loads((NODEJS / "package-lock.json").read_text())["packages"]["node_modules/node"]["version"]
    assert int(pinned.split(".")[0]) % 2 == 0, f"Node {pinned} is not an LTS line (even majors are)"
    manifest = tomllib.loads((NODEJS / "mcpbench.toml").read_text())
    assert manifest["run"]["command"][0] == "node_modules/.bin/node"
    assert pinned in manifest["server"]["runtime"]
    assert manifest["server"]["version_args"] == ["--version"]  # run.json's runtime_version says which ran
    node20 = manifest["variants"]["nodejs-node20"]
    assert node20["run"]["command"][0] == "node" and "end-of-life" in node20["runtime"]


def test_the_image_runs_the_same_node_binary() -> None:
    dockerfile = (NODEJS / "Dockerfile").read_text()
    stages = {block.split()[0]: block for block in dockerfile.split(" AS ")[1:]}
    assert 'cp "$(readlink -f node_modules/.bin/node)" /out/node' in dockerfile
    assert "COPY --from=build /out/node /usr/local/bin/node" in stages["node"]
    installs = [line for line in stages["node"].splitlines() if "apt-get install" in line]
    assert all("nodejs" not in line for line in installs)  # not Debian's Node.js 20 (that is the node20 stage's)


def test_the_maintenance_lts_comes_from_the_same_lockfile_under_an_alias() -> None:
    node24 = json.loads((NODEJS / "package-lock.json").read_text())["packages"]["node_modules/node24"]
    assert node24["name"] == "node" and int(node24["version"].split(".")[0]) % 2 == 0
    variant = tomllib.loads((NODEJS / "mcpbench.toml").read_text())["variants"]["nodejs-node24"]
    assert variant["run"]["command"][0] == "node_modules/node24/bin/node"
    assert node24["version"] in variant["runtime"]
    dockerfile = (NODEJS / "Dockerfile").read_text()
    assert "cp node_modules/node24/bin/node /out/node24" in dockerfile
    assert "COPY --from=build /out/node24 /usr/local/bin/node" in dockerfile
