#!/usr/bin/env python3
"""Two runtimes side by side, interleaved (A B A B …): what moving the same servers from one to the other changes
in tool calls/s, p99 latency and the server's CPU per call, as B/A ratios per pair — the median and the range
over the pairs (the project's rule on a shared host: never one absolute number, always interleaved pairs).

    .venv/bin/python scripts/runtime_pairs.py go python nodejs --a local --b swarm --pairs 5 \
        --results-dir /tmp/pairs -- --cpus 1 --load-instances 2 --quick
    .venv/bin/python scripts/runtime_pairs.py --read /tmp/pairs     # the table again, from the runs it made

Arguments after `--` go to every `mcpbench run`. Each run is one round of every server (its own calibration,
its own infrastructure); a pair is the two runs made one after the other. A benchmark, not a test: on the
one-machine swarm lab the two runtimes share the same cores, so the ratio is about the overlay network's and
the orchestration's cost, not about capacity.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from mcpbench.results.layout import RunDir

FIGURES = {  # name -> (how to read it from summary.json, unit)
    "tool calls/s": (lambda s: s["throughput"]["tool_calls_per_s"], ""),
    "p99 ms": (lambda s: s["latency_ms"]["tool_call"]["p99"], ""),
    "server CPU ms/call": (lambda s: s["efficiency"]["cpu_ms_per_call"], ""),
}


def run(runtime: str, servers: list[str], results: Path, extra: list[str]) -> Path:
    results.mkdir(parents=True, exist_ok=True)
    before = set(results.iterdir())
    argv = [sys.executable, "-m", "mcpbench.cli", "run", *servers, "--runtime", runtime, "--runs", "1",
            "--results-dir", str(results), *extra]
    print("$", " ".join(argv[2:]), flush=True)
    subprocess.run(argv, check=False, stdin=subprocess.DEVNULL)
    made = [p for p in set(results.iterdir()) - before if p.is_dir()]
    if len(made) != 1:
        raise SystemExit(f"expected one new run under {results}, found {made}")
    return made[0]


def figures(run_dir: Path) -> dict[str, dict[str, float]]:
    """Per server, each figure of its one publishable-or-not ok measurement (the first mode and VUs)."""
    found: dict[str, dict[str, float]] = {}
    for measurement in RunDir(run_dir).measurements():
        summary = json.loads(measurement.summary.read_text())
        if summary.get("status") != "ok":
            continue
        server = measurement.server
        found.setdefault(server, {name: read(summary) for name, (read, _) in FIGURES.items()})
    return found


def table(pairs: list[tuple[Path, Path]], a: str, b: str) -> str:
    by_pair = [(figures(first), figures(second)) for first, second in pairs]
    servers = sorted({s for first, second in by_pair for s in first if s in second})
    lines = [f"{b}/{a} over {len(pairs)} interleaved pairs: median ratio [min–max]; medians of each side",
             f"{'server':14} {'figure':20} {'ratio':>8} {'range':>15} {a + ' median':>14} {b + ' median':>14} pairs"]
    for server in servers:
        for name in FIGURES:
            ratios, left, right = [], [], []
            for first, second in by_pair:
                x, y = first.get(server, {}).get(name), second.get(server, {}).get(name)
                if x and y:
                    ratios.append(y / x)
                    left.append(x)
                    right.append(y)
            if not ratios:
                continue
            lines.append(f"{server:14} {name:20} {statistics.median(ratios):8.3f} "
                         f"{min(ratios):7.3f}–{max(ratios):<7.3f} {statistics.median(left):14.3f} "
                         f"{statistics.median(right):14.3f} {len(ratios)}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("servers", nargs="*")
    parser.add_argument("--a", default="local")
    parser.add_argument("--b", default="swarm")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--results-dir", type=Path, default=Path("results/runtime-pairs"))
    parser.add_argument("--read", type=Path, help="only print the table of the pairs made under this directory")
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    args = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    root = args.read or args.results_dir
    record = root / "pairs.json"
    if not args.read:
        pairs = []
        for _ in range(args.pairs):
            first = run(args.a, args.servers, root / args.a, extra)
            second = run(args.b, args.servers, root / args.b, extra)
            pairs.append([str(first), str(second)])
            record.write_text(json.dumps({"a": args.a, "b": args.b, "pairs": pairs}, indent=1))
    data = json.loads(record.read_text())
    print(table([(Path(x), Path(y)) for x, y in data["pairs"]], data["a"], data["b"]))


if __name__ == "__main__":
    main()
