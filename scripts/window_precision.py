"""What a shorter measured window costs in precision, on recorded runs (issue 21):

    .venv/bin/python scripts/window_precision.py RESULTS… [--seconds 5,10]

Every measurement of the given runs (windows of at least the longest --seconds) is analysed again by the real
analysis (analysis.summary.reanalyze) over the first N seconds of its own window — same warm-up, same server
start, only a shorter window — and over its whole window. Per load and server: the round-to-round coefficient
of variation (sd / mean over rounds) of throughput and of server CPU ms per call at each window length, then the
median over servers. A ranking's paired test has to beat this spread; its interval widens with it. And the shift
of each server's mean CPU ms per call against its whole window: a server still warming up (a JIT) spends more in
the first seconds, which a short window measures.
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from pathlib import Path

from mcpbench.analysis.summary import reanalyze
from recorded_runs import ok_measurements


def cv(values: list[float]) -> float | None:
    return statistics.stdev(values) / statistics.fmean(values) if len(values) >= 2 and statistics.fmean(values) else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", type=Path)
    parser.add_argument("--seconds", default="5,10")
    args = parser.parse_args()
    lengths = [float(s) for s in args.seconds.split(",")]
    # (run, load label) -> window -> metric -> server -> [per-round figures]
    figures: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(lambda: defaultdict(list))))
    for server, directory, summary in ok_measurements(args.results, max(lengths)):
        run = directory.parent.parent
        start, end = summary["window"]["start_s"], summary["window"]["end_s"]
        label = directory.name.rsplit("-r", 1)[0]
        for length in [*lengths, end - start]:
            key = "whole" if length == end - start else f"{length:g} s"
            if length < end - start:
                again = reanalyze(directory, (start, start + length))
                calls_per_s, cpu = again.throughput.tool_calls_per_s, again.efficiency.cpu_ms_per_call
            else:  # the whole window: the figures recorded
                calls_per_s, cpu = summary["throughput"]["tool_calls_per_s"], summary["efficiency"]["cpu_ms_per_call"]
            figures[(run.name, label)][key]["calls/s"][server].append(calls_per_s)
            if cpu:
                figures[(run.name, label)][key]["CPU ms/call"][server].append(cpu)
    for (run, label), by_window in sorted(figures.items()):
        print(f"{run} {label}: round-to-round CV, median over servers (per server)")
        for window, metrics in by_window.items():
            parts = []
            for metric, servers in metrics.items():
                cvs = {s: cv(v) for s, v in sorted(servers.items()) if cv(v) is not None}
                if cvs:
                    each = ", ".join(f"{s} {c:.1%}" for s, c in cvs.items())
                    parts.append(f"{metric} {statistics.median(cvs.values()):.1%} ({each})")
            print(f"  {window:>6}: " + "; ".join(parts))
        whole = by_window.get("whole", {}).get("CPU ms/call", {})
        for window, metrics in by_window.items():
            if window == "whole":
                continue
            shifts = {s: statistics.fmean(v) / statistics.fmean(whole[s]) - 1
                      for s, v in sorted(metrics.get("CPU ms/call", {}).items()) if whole.get(s)}
            if shifts:
                print(f"  {window:>6}: mean CPU ms/call vs the whole window: "
                      + ", ".join(f"{s} {d:+.1%}" for s, d in shifts.items()))


if __name__ == "__main__":
    main()
