"""What `run --prewarm` buys, on interleaved runs (issue 34): each run is one arm (A without, B with pre-warm) of
the same servers at the same offered rate with long windows, run A B A B …; per server, the profile's figure
(CPU ms per call over the first 5 s of the window the live warm-up rule chose), the same server's figure over
the last --reference-s seconds of that window (as warm as the recording got), and the warm-up spent.

    .venv/bin/python scripts/prewarm_pairs.py --a RESULTS… --b RESULTS… [--reference-s 10]

Prints per server and arm: the mean warm-up, the first window's mean CPU ms per call and its round-to-round CV,
and its shift against the arm's own reference and against A's reference (the later state without pre-warm).
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from pathlib import Path

from mcpbench.analysis.summary import reanalyze
from recorded_runs import ok_measurements

WINDOW_S = 5.0


def figures(runs: list[Path], reference_s: float) -> dict[str, list[tuple[float, float, float]]]:
    """server -> [(warm-up s, CPU ms/call of the first 5 s, CPU ms/call of the last reference_s)]"""
    out: dict[str, list] = defaultdict(list)
    for server, directory, summary in ok_measurements(runs, WINDOW_S + reference_s):
        start, end = summary["window"]["start_s"], summary["window"]["end_s"]
        first = reanalyze(directory, (start, start + WINDOW_S)).efficiency.cpu_ms_per_call
        late = reanalyze(directory, (end - reference_s, end)).efficiency.cpu_ms_per_call
        out[server].append((summary["warmup"]["used_s"], first, late))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", nargs="+", type=Path, required=True)
    parser.add_argument("--b", nargs="+", type=Path, required=True)
    parser.add_argument("--reference-s", type=float, default=10.0)
    args = parser.parse_args()
    arms = {"A (no pre-warm)": figures(args.a, args.reference_s), "B (pre-warm)": figures(args.b, args.reference_s)}
    a_ref = {s: statistics.fmean(late for _, _, late in v) for s, v in arms["A (no pre-warm)"].items()}
    print(f"server: arm — warm-up s, CPU ms/call of the first {WINDOW_S:g} s (CV over rounds), shift vs the arm's "
          f"last {args.reference_s:g} s, shift vs A's last {args.reference_s:g} s")
    for server in sorted(a_ref):
        for arm, found in arms.items():
            v = found.get(server, [])
            if not v:
                continue
            first = [f for _, f, _ in v]
            mean = statistics.fmean(first)
            cv = statistics.stdev(first) / mean if len(first) > 1 else float("nan")
            own = statistics.fmean(f / late - 1 for _, f, late in v)
            print(f"  {server:12s} {arm:16s} {statistics.fmean(w for w, _, _ in v):5.1f} s  {mean:.3f} (CV {cv:.0%})  "
                  f"{own:+.0%}  {mean / a_ref[server] - 1:+.0%}  (n={len(v)})")


if __name__ == "__main__":
    main()
