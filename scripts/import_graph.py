#!/usr/bin/env python3
"""Count the shape of the orchestrator's and the report's import graph: modules per package, floors, import
circles, upward imports, and how much of the orchestrator the report pulls in.

    .venv/bin/python scripts/import_graph.py            # a table
    .venv/bin/python scripts/import_graph.py --json     # the same figures, machine-readable

grimp builds the graph (every import counts, including type-only and function-local ones: they are
dependencies all the same); networkx finds the circles and the floors. "Upward" is judged against the
layers of the `mcpbench layers` contract in pyproject.toml (import-linter enforces it in the tests): a module
importing a package listed above its own is an upward import.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from collections import Counter
from pathlib import Path

import grimp
import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("mcpbench", "mcpbench_report")


def layers() -> list[str]:
    """The orchestrator's layers, highest first, as the import-linter contract in pyproject.toml lists them
    (one definition of the architecture; [] before there was one)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    for contract in config.get("tool", {}).get("importlinter", {}).get("contracts", []):
        if contract.get("type") == "layers" and contract.get("containers") == ["mcpbench"]:
            return [layer.split("|")[0].strip() for layer in contract["layers"]]
    return []


def package_of(module: str) -> str:
    """`mcpbench.host.cgroups` -> `mcpbench.host`; a top-level module is its own package's member."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 or (len(parts) == 2 and _is_package(module)) else parts[0]


def _is_package(module: str) -> bool:
    top, _, rest = module.partition(".")
    base = ROOT / ("benchmark" if top == "mcpbench" else "report") / top
    return (base / rest.replace(".", "/") / "__init__.py").is_file()


def figures() -> dict:
    graph = grimp.build_graph(*PACKAGES, include_external_packages=False, cache_dir=None)
    modules = sorted(m for m in graph.modules if not m.endswith("__init__") and m not in PACKAGES)
    # A package's __init__ re-exporting its members is the package's own face, not a dependency between floors.
    digraph = nx.DiGraph()
    digraph.add_nodes_from(modules)
    for importer in modules:
        for imported in graph.find_modules_directly_imported_by(importer):
            if imported in digraph and imported != importer:
                digraph.add_edge(importer, imported)
    circles = sorted((sorted(c) for c in nx.strongly_connected_components(digraph) if len(c) > 1), key=len,
                     reverse=True)
    condensed = nx.condensation(digraph)
    floors = nx.dag_longest_path_length(condensed) + 1 if condensed.number_of_nodes() else 0
    members = nx.get_node_attributes(condensed, "members")
    longest = [" / ".join(sorted(members[n])) for n in nx.dag_longest_path(condensed)]

    order = layers()
    rank = {name: index for index, name in enumerate(order)}  # 0 = the highest layer

    def layer(module: str) -> str | None:
        for name in order:
            full = f"mcpbench.{name}"
            if module == full or module.startswith(full + "."):
                return name
        return None

    upward = sorted(f"{a} -> {b}" for a, b in digraph.edges
                    if a.startswith("mcpbench.") and b.startswith("mcpbench.")
                    and layer(a) in rank and layer(b) in rank and rank[layer(b)] < rank[layer(a)])
    report_pulls = sorted({m for m in modules if m.startswith("mcpbench.")} & set().union(
        *(nx.descendants(digraph, m) for m in modules if m.startswith("mcpbench_report"))))
    per_package = Counter(package_of(m) for m in modules)
    return {
        "modules": len(modules),
        "per_package": dict(sorted(per_package.items())),
        "floors": floors,
        "longest_chain": longest,
        "circles": circles,
        "layers": order,
        "upward_imports": upward,
        "report_pulls": report_pulls,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    args = parser.parse_args()
    sys.path[:0] = [str(ROOT / "benchmark"), str(ROOT / "report")]
    result = figures()
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{result['modules']} modules on {result['floors']} floors (the longest import chain: "
          f"{' -> '.join(m.removeprefix('mcpbench.') for m in result['longest_chain'])})")
    for package, count in result["per_package"].items():
        print(f"  {package:32} {count:3d}")
    print(f"import circles: {len(result['circles'])}"
          + "".join(f"\n  {len(c)} modules: {', '.join(c)}" for c in result["circles"]))
    print(f"upward imports (against {len(result['layers'])} layers): {len(result['upward_imports'])}"
          + "".join(f"\n  {edge}" for edge in result["upward_imports"]))
    print(f"orchestrator modules the report imports (directly or not): {len(result['report_pulls'])}"
          + "".join(f"\n  {m}" for m in result["report_pulls"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
