"""How far the speed probe may move before a measurement is measured again, decided on recorded runs (issue 49):

    .venv/bin/python scripts/unstable_threshold.py RESULTS… [--label equal] [--thresholds 0.05,0.1,0.15,0.2,1]
                                                          [--rounds 3] [--replays 1000] [--window 5]

A run keeps every measurement the host disturbed (<label>-r<N>.disturbed[K]) beside the retake that replaced it,
each with its probe's change (summary host.probe). For a threshold T, each server's round is the first of its
attempts whose probe moved at most T (steal and foreign CPU judged as the run judged them), or its last attempt when
none did: what the runner would have kept had T been its rule, and the retakes it would not have made. Each
threshold's table of CPU ms per call is then replayed as the report ranks it (mcpbench_report.validation): false
separations of A/A twins, power at pairs of known size, and the pairs the table itself separates. Rounds of several
runs pool as (run id, round): two 3-round runs make the 6 rounds a replay of 3-round runs draws from.
`--window S`: each measurement's figure over the first S s of its window (analysis.summary.reanalyze), as a run
with S-second windows would have read it.
"""

from __future__ import annotations

import argparse
import json
import statistics
from dataclasses import dataclass
from pathlib import Path

from mcpbench.analysis.summary import NOISY_HOST, UNSTABLE_HOST, reanalyze
from mcpbench.results.layout import DISTURBED, MeasurementDir, RunDir
from mcpbench.results.model import Summary, parsed
from mcpbench_report import validation

MOVED = 0.05  # a probe past this moved more than its own spread (a quiet host's: CV ~1 %, 90th percentile ~5 %)


@dataclass(frozen=True)
class Attempt:
    """One measurement of a server's load in a round, in the order they were taken."""

    directory: MeasurementDir
    summary: Summary
    probe_change: float      # the largest |change| of the speed probe over the CPUs (0: none recorded)
    otherwise_disturbed: bool  # disturbed for a reason no probe threshold changes: foreign CPU, steal

    @property
    def cpu_ms_per_call(self) -> float | None:
        return self.summary.efficiency.cpu_ms_per_call


def _attempt(directory: MeasurementDir) -> Attempt:
    summary = parsed(Summary, json.loads(directory.summary.read_text()), directory.summary)
    changes = [abs(p.change) for p in (summary.host.probe.values() if summary.host else []) if p.change is not None]
    reasons = summary.host.reasons if summary.host else []
    steal = any("stolen" in reason for reason in reasons)
    return Attempt(directory, summary, max(changes, default=0.0), NOISY_HOST in summary.flags or steal)


def _order(directory: MeasurementDir) -> int:
    """.disturbed first, then .disturbed2 …, the one that stood last."""
    suffix = directory.name.partition(DISTURBED)[2] if DISTURBED in directory.name else None
    if suffix is None:
        return 10**6
    return int(suffix) if suffix else 1


def attempts(results: list[Path], label: str) -> dict[str, dict[tuple[str, int], list[Attempt]]]:
    """server -> (run id, round) -> its attempts in order, for measurements whose label contains `label`."""
    found: dict[str, dict[tuple[str, int], list[Attempt]]] = {}
    for path in results:
        run = RunDir(path)
        run_id = path.name
        for server in run.servers():
            for directory in sorted((MeasurementDir(p) for p in server.path.iterdir() if p.is_dir()), key=_order):
                if label not in directory.label or directory.round is None or not directory.summary.is_file():
                    continue
                if ".incomplete" in directory.name:
                    continue
                found.setdefault(server.name, {}).setdefault((run_id, directory.round), []).append(
                    _attempt(directory))
    return found


def kept(chain: list[Attempt], threshold: float) -> Attempt:
    """The attempt a runner whose probe allows `threshold` would have kept: the first not disturbed, else the
    last (which stands, flagged)."""
    for attempt in chain:
        if attempt.probe_change <= threshold and not attempt.otherwise_disturbed:
            return attempt
    return chain[-1]


def figure(attempt: Attempt, window_s: float | None) -> float | None:
    if window_s is None:
        return attempt.cpu_ms_per_call
    start = attempt.summary.window.start_s
    return reanalyze(attempt.directory, (start, start + window_s)).efficiency.cpu_ms_per_call


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path, nargs="+")
    parser.add_argument("--label", default="equal", help="measurements whose load label contains this")
    parser.add_argument("--thresholds", default="0.05,0.1,0.15,0.2,0.3,1")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--replays", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--window", type=float, default=None)
    parser.add_argument("--twins", action="store_true", help="keep --twin copies (left out by default)")
    args = parser.parse_args(argv)

    chains = attempts(args.results, args.label)
    if not args.twins:
        chains = {name: rounds for name, rounds in chains.items() if not name.endswith("-twin")}
    every = [a for rounds in chains.values() for chain in rounds.values() for a in chain]
    changes = sorted(a.probe_change for a in every)
    print(f"{len(chains)} servers, {sum(len(r) for r in chains.values())} server-rounds, {len(every)} measurements "
          f"({len(every) - sum(len(r) for r in chains.values())} retakes); probe |change|: median "
          f"{statistics.median(changes):.1%}, > 5 %: {sum(c > 0.05 for c in changes)}, > 15 %: "
          f"{sum(c > 0.15 for c in changes)}, max {changes[-1]:.1%}; {UNSTABLE_HOST} or {NOISY_HOST} flagged: "
          f"{sum(bool({UNSTABLE_HOST, NOISY_HOST} & set(a.summary.flags)) for a in every)}")
    for threshold in (float(x) for x in args.thresholds.split(",")):
        picked = {name: {key: kept(chain, threshold) for key, chain in rounds.items()} for name, rounds in
                  chains.items()}
        measured = sum(1 + chain.index(picked[name][key]) for name, rounds in chains.items()
                       for key, chain in rounds.items())
        moved = sum(a.probe_change > MOVED for rounds in picked.values() for a in rounds.values())
        figures = {name: {key: value for key, a in rounds.items() if (value := figure(a, args.window))}
                   for name, rounds in picked.items()}
        table = validation.Table(figures, False, f"probe threshold {threshold:.0%}").complete()
        server_rounds = sum(len(r) for r in chains.values())
        line = (f"T = {threshold:>4.0%}: {measured} measurements taken ({measured - server_rounds} retakes), "
                f"{moved} kept with the probe past {MOVED:.0%}; "
                f"{len(table.figures)} servers x {len(table.rounds)} complete rounds")
        print(line)
        if len(table.rounds) >= 2 * args.rounds:
            for result in validation.replay(table, args.rounds, args.replays, args.seed, [1.0, 1.3, 2.0], (True,)):
                what = "false separations (A/A)" if result.scale == 1 else f"power at ×{result.scale:g}"
                print(f"    {what:24s} {result.separated.text}")
        for moderate in (True,):
            if len(table.rounds) > args.rounds:
                classes, near = validation.subset_power(table, args.rounds, limit=200, moderate=moderate)
                print("    subsets: " + "; ".join(f"pairs ≥ ×{c.ratio:g} ({c.pairs}): {c.separated.text}"
                                                  for c in classes) + f"; pairs within 5 %: {near.text}")


if __name__ == "__main__":
    main()
