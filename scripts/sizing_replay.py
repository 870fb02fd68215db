"""What a shorter sizing load would have set the equal load at, on recorded first runs (issue 49):

    .venv/bin/python scripts/sizing_replay.py RESULTS… [--probes 2:3,3:3,5:5] [--fraction 0.7]

A first run sizes its equal load from round 1's closed-model loads (`--closed-once`: a fixed 10 s warm-up, then the
window): the equal rate is the fraction of the slowest server's rate. Each sizing measurement holds every second of
its load, so a shorter probe (W s of warm-up after the ramp-up, then an L s window) is read from the same samples
(analysis.summary.reanalyze over that window). For each probe: each server's rate against the recorded one, the
equal rate it would have set, and a probe followed by the recorded load again for the servers it might have put
first (probed slowest first, until the next one's probe rate is above the lowest rate measured whole: a server not
warm reads slower, so its probe is a lower bound), with how many whole loads that took.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from mcpbench.analysis.summary import reanalyze
from mcpbench.results.layout import RunDir

SIZING = "-50vu"


def sizing_measurements(run: Path) -> dict[str, tuple[Path, dict]]:
    """server -> its round-1 closed-model sizing measurement (the one that stood) and its summary."""
    found = {}
    for measurement in RunDir(run).measurements():
        if measurement.round != 1 or not measurement.label.endswith(SIZING) or not measurement.summary.is_file():
            continue
        summary = json.loads(measurement.summary.read_text())
        if summary["status"] == "ok" and not measurement.server.endswith("-twin"):
            found[measurement.server] = (measurement.path, summary)
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path, nargs="+")
    parser.add_argument("--probes", default="2:2,2:3,3:3,5:3,5:5", help="W:L pairs: warm-up and window, seconds")
    parser.add_argument("--fraction", type=float, default=0.7)
    args = parser.parse_args(argv)
    for run in args.results:
        sized = sizing_measurements(run)
        if not sized:
            print(f"{run.name}: no round-1 sizing load")
            continue
        recorded = {name: summary["throughput"]["tool_calls_per_s"] for name, (_, summary) in sized.items()}
        slowest = min(recorded, key=recorded.__getitem__)
        ramp = min(summary["window"]["start_s"] - summary["warmup"]["used_s"] for _, summary in sized.values())
        print(f"{run.name}: {len(sized)} servers; recorded sizing (10 s warm-up, 5 s window): slowest {slowest} "
              f"{recorded[slowest]:.1f} calls/s, equal rate {args.fraction * recorded[slowest]:.1f}")
        for probe in args.probes.split(","):
            warm, length = (float(x) for x in probe.split(":"))
            window = (ramp + warm, ramp + warm + length)
            rates = {name: reanalyze(path, window).throughput.tool_calls_per_s for name, (path, _) in sized.items()}
            ratios = {name: rates[name] / recorded[name] for name in sized}
            low = min(rates, key=rates.__getitem__)
            # probe every server, then the whole load again for those that may be the slowest, slowest first
            whole: dict[str, float] = {}
            for name in sorted(rates, key=rates.__getitem__):
                if whole and rates[name] >= min(whole.values()):
                    break
                whole[name] = recorded[name]
            confirmed = min(whole.values())
            worst = sorted(ratios.items(), key=lambda kv: kv[1])[:3]
            print(f"  probe {warm:g} s + {length:g} s: rate / recorded median {statistics.median(ratios.values()):.2f} "
                  f"(lowest {', '.join(f'{n} {r:.2f}' for n, r in worst)}); slowest {low} {rates[low]:.1f} -> equal "
                  f"{args.fraction * rates[low]:.1f} ({rates[low] / recorded[slowest] - 1:+.0%}); with the slowest "
                  f"measured whole again ({len(whole)}: {', '.join(whole)}): equal "
                  f"{args.fraction * confirmed:.1f} ({confirmed / recorded[slowest] - 1:+.0%})")


if __name__ == "__main__":
    main()
