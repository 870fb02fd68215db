"""Manifests record the protocol revisions their SDK accepts (the report's protocol matrix), and the interpreted
servers have v2-parity variants that really change the worker count (v2 ran 4 workers; ours follow CPU_LIMIT)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

SERVERS = Path(__file__).resolve().parents[2] / "servers"
REVISION = re.compile(r"^\d{4}-\d{2}-\d{2}$")

# Every manifest records its SDK's supported-versions list (each cites its source file:line in a comment beside
# `protocols`): a new server directory is checked by being added.
RECORDED = sorted(p.parent.name for p in SERVERS.glob("*/mcpbench.toml"))

# The v2-parity variants: variant -> (manifest directory, the variant it doubles, v2's name for it or None).
V2_WORKERS = {
    "nodejs-v2workers": ("nodejs", None, "nodejs"),
    "bun-v2workers": ("nodejs", "bun", None),  # Bun was not in the v2 study
    "python-v2workers": ("python", None, "python"),
}
# Where each server reads the worker-count override.
WORKER_SOURCES = {"nodejs": "src/server.ts", "python": "mcpbench_workload/serving.py",
                  "nodejs-fastmcp": "src/server.ts", "python-fastmcp": "mcpbench_fastmcp4/__main__.py"}


def manifest(directory: str) -> dict:
    return tomllib.loads((SERVERS / directory / "mcpbench.toml").read_text(encoding="utf-8"))


def all_manifests() -> list[Path]:
    return sorted(SERVERS.glob("*/mcpbench.toml"))


@pytest.mark.parametrize("directory", RECORDED)
def test_the_manifest_records_its_protocol_revisions(directory: str) -> None:
    protocols = manifest(directory)["server"].get("protocols")
    assert protocols, f"servers/{directory}/mcpbench.toml: [server] protocols is not recorded"
    assert "2024-11-05" in protocols, "every server speaks the v2 study's 2024-11-05 session pattern"


@pytest.mark.parametrize("path", all_manifests(), ids=lambda p: p.parent.name)
def test_recorded_protocols_are_revisions_oldest_first(path: Path) -> None:
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    lists = [raw["server"].get("protocols")] + [v.get("protocols") for v in raw.get("variants", {}).values()]
    for protocols in filter(None, lists):
        assert all(REVISION.match(p) for p in protocols), protocols
        assert protocols == sorted(set(protocols)), f"{path}: protocols must be unique and oldest first"


@pytest.mark.parametrize("name", sorted(V2_WORKERS))
def test_the_v2_parity_variant_runs_four_workers(name: str) -> None:
    directory, doubles, v2_name = V2_WORKERS[name]
    raw = manifest(directory)
    variant = raw["variants"][name]
    assert variant["run"]["env"]["WORKERS"] == "4"
    assert "(v2 parity: 4 workers)" in variant["display_name"]
    assert variant.get("v2_name") == v2_name
    if doubles:  # same program as the variant it doubles, and the same docker stage
        assert variant["run"]["command"] == raw["variants"][doubles]["run"]["command"]
        docker_variants = raw.get("docker", {}).get("variants", {})
        if doubles in docker_variants:
            assert docker_variants[name]["target"] == docker_variants[doubles]["target"]
    else:
        assert "command" not in variant.get("run", {}), "runs the base server's command"


@pytest.mark.parametrize("directory", sorted(WORKER_SOURCES))
def test_the_server_reads_the_workers_override(directory: str) -> None:
    source = (SERVERS / directory / WORKER_SOURCES[directory]).read_text(encoding="utf-8")
    assert "WORKERS" in source and "CPU_LIMIT" in source
