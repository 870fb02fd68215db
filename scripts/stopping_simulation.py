"""What `--rounds auto` is worth, on recorded runs (issue 21):

    .venv/bin/python scripts/stopping_simulation.py simulate RESULTS… [--metric cpu_ms_per_call] [--trials 20000]
        False orderings of two EQUAL servers: every pair's recorded per-round log ratios, centred on zero (so
        the pair is equal by construction) and pooled, are drawn with replacement into runs of up to
        --max-rounds rounds; each run is looked at after every round from the third, by the fixed-n paired
        t-test at 0.05 (what re-running the report's test each round would do) and by the spent rule
        (analysis/sequential.py). Prints each rule's false-ordering rate with its Clopper-Pearson 95 % interval.

    .venv/bin/python scripts/stopping_simulation.py replay RESULTS [--rounds 6]
        A run measured with at least --rounds fixed rounds, replayed: what fixed 3, fixed N and `--rounds auto`
        (at most N) would have concluded from the same rounds — rounds used, wall time (the last summary.json
        of the round, by file time), and adjacent pairs resolved (ordered or equivalent). The auto rule decides
        after round k from rounds 1…k only, so its replay is what it would have done live.

The figures are the report's own (mcpbench_report.consolidate): the headline load's per-round throughput (rows
no limit of the harness capped), or an equal load's CPU ms per call with --metric cpu_ms_per_call.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from mcpbench.analysis import sequential
from mcpbench_report.consolidate import consolidate
from mcpbench_report.load import load


def per_round(paths: list[Path], metric: str) -> list[dict[str, dict]]:
    """Per results directory, the chosen ranking's per-round figures by server (rows the report ranks)."""
    out = []
    for d in load(paths):
        cons = consolidate([d])
        key = cons.equal_headline if metric == "cpu_ms_per_call" else cons.headline
        if key is None:
            continue
        # Every server with a figure, except where a limit of the harness set it (a throughput that is a
        # lower bound moves with the harness, not the server); CPU per call stays the server's.
        names = [r.server for r in cons.rows[key] if metric == "cpu_ms_per_call" or not r.harness_bound]
        out.append({n: {rnd: v for (_, rnd), v in cons.groups[(n, key)].by_round(metric).items() if v}
                    for n in names})
    return out


def residuals(runs: list[dict[str, dict]]) -> np.ndarray:
    """Every pair's per-round log ratio minus the pair's mean: what two equal servers' rounds look like here."""
    pooled = []
    for figures in runs:
        names = sorted(figures)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                shared = [k for k in figures[a] if k in figures[b]]
                if len(shared) >= 2:
                    d = np.array([math.log(figures[b][k] / figures[a][k]) for k in shared])
                    pooled += list(d - d.mean())
    return np.asarray(pooled)


def simulate(args: argparse.Namespace) -> None:
    pool = residuals(per_round(args.results, args.metric))
    if pool.size < 10:
        raise SystemExit("fewer than 10 recorded per-round ratios: give runs with at least 2 rounds")
    print(f"{pool.size} recorded per-round log ratios (sd {pool.std(ddof=1):.4f}), {args.trials} simulated runs of "
          f"at most {args.max_rounds} rounds, two equal servers:")
    for name, alpha in (("fixed-n test at 0.05 after every round", sequential.ALPHA),
                        ("alpha spent over the looks (--rounds auto)", sequential.look_alpha(args.max_rounds))):
        sim = sequential.simulate(pool, args.max_rounds, args.trials, args.seed, alpha)
        low, high = sim.interval()
        print(f"  {name:45s} per look {alpha:.4f}: false orderings {sim.rate:.2%} [{low:.2%}–{high:.2%}], "
              f"mean rounds {sim.mean_rounds:.2f}")


def resolved_after(figures: dict[str, dict], rounds: int, alpha: float, higher_better: bool) -> tuple[int, int]:
    upto = {n: {k: v for k, v in runs.items() if k <= rounds} for n, runs in figures.items()}
    pairs = sequential.judge(upto, higher_better, alpha)
    return sum(p.state != "open" for p in pairs), len(pairs)


def replay(args: argparse.Namespace) -> None:
    [d] = load([args.results[0]])
    higher = args.metric == "tool_calls_per_s"
    [figures] = per_round([d.path], args.metric)
    n = args.rounds
    if min((len(v) for v in figures.values()), default=0) < n:
        raise SystemExit(f"{d.run_id}: fewer than {n} rounds for some ranked server")
    ends = {}
    for m in d.measurements:
        ends[m.run] = max(ends.get(m.run, 0.0), m.directory.summary.stat().st_mtime)
    first = min(m.directory.summary.stat().st_mtime for m in d.measurements)

    def wall(rounds: int) -> str:
        return f"{(ends[rounds] - first) / 60:.1f} min after the first measurement"

    print(f"{d.run_id}: {len(figures)} servers, {args.metric}")
    for label, rounds, alpha in (("fixed 3", 3, sequential.ALPHA), (f"fixed {n}", n, sequential.ALPHA)):
        done, total = resolved_after(figures, rounds, alpha, higher)
        print(f"  {label:9s} rounds {rounds}  {wall(rounds)}  resolved {done}/{total} adjacent pairs")
    alpha = sequential.look_alpha(n)
    for rounds in range(sequential.MIN_ROUNDS, n + 1):
        done, total = resolved_after(figures, rounds, alpha, higher)
        if done == total or rounds == n:
            print(f"  auto      rounds {rounds}  {wall(rounds)}  resolved {done}/{total} adjacent pairs "
                  f"(per look {alpha:.4f}; {'resolved' if done == total else 'cap'})")
            break


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("simulate", "replay"):
        p = sub.add_parser(name)
        p.add_argument("results", nargs="+", type=Path)
        p.add_argument("--metric", default="tool_calls_per_s", choices=("tool_calls_per_s", "cpu_ms_per_call"))
    sim = sub.choices["simulate"]
    sim.add_argument("--trials", type=int, default=20000)
    sim.add_argument("--max-rounds", type=int, default=sequential.DEFAULT_MAX_ROUNDS)
    sim.add_argument("--seed", type=int, default=20261125)
    sub.choices["replay"].add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    {"simulate": simulate, "replay": replay}[args.command](args)


if __name__ == "__main__":
    main()
