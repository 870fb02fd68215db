"""The report's tests, checked both ways on recorded rounds (issue 34; mcpbench_report/validation.py):

    .venv/bin/python scripts/null_replay.py extract RESULTS [--metric cpu_ms_per_call] [--flagged] [-o table.json]
        One ranking's per-round figures, through the report's own consolidation: at the equal load (CPU ms per
        call, p99_all, mem_peak_mb) or the headline load (tool_calls_per_s). --twin copies are left out; the
        ranked rows only, unless --flagged.

    .venv/bin/python scripts/null_replay.py null TABLE|RESULTS [--rounds 3] [--replays 1000] [--scales 1,1.1,1.3,2]
            [--only SERVER,SERVER…]
        A/A replays: a server and its twin measured in other rounds of the same run (moved to the slot's host
        effect), ranked with every server over `rounds` rounds as the report ranks them. Scale 1: how often the
        two copies are separated (false separations; <= 5 % wanted). Scale k: a pair of known size k (power).
        Both the moderated test and the plain paired t-test (what the report did before), side by side.

    .venv/bin/python scripts/null_replay.py subsets TABLE|RESULTS [--rounds 3]
        Every k-round subset of a longer run ranked as a run of its own: the share of the pairs the whole run
        puts >= 1.3x and >= 2x apart that it separates, and of the pairs within 5 % that it separates.

    .venv/bin/python scripts/null_replay.py gate TABLE|RESULTS [--levels 2,6] [--rounds 3] [--confirm-rounds 5]
            [--replays 1000] [--scales 1,1.2,1.5]
        The CI gate's two stages (mcpbench.analysis.gate) replayed: each level a server's base and its twin times
        a scale as the candidate, screened at SCREEN_ALPHA, the suspected levels confirmed at CONFIRM_ALPHA on
        a fresh draw of rounds. Per scale: how often the screen alone suspects a regression and how often the gate
        fails (false alarms at scale 1, power above). A lower-is-better table (CPU ms per call).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mcpbench_report import stats, validation
from mcpbench_report.consolidate import consolidate
from mcpbench_report.load import load
from mcpbench_report.rows import Row

METRICS = {"cpu_ms_per_call": False, "p99_all": False, "mem_peak_mb": False, "tool_calls_per_s": True}


def extract(path: Path, metric: str, flagged: bool = False) -> validation.Table:
    cons = consolidate(load([path]))
    key = cons.headline if metric == "tool_calls_per_s" else cons.equal_headline
    if key is None:
        raise SystemExit(f"{path}: no equal load to take {metric} from")
    def ranked(row: Row) -> bool:
        return (row.section if metric == "tool_calls_per_s" else row.efficiency_section) == "ranked"

    names = [r.server for r in cons.rows[key] if (flagged or ranked(r)) and r.server not in cons.twins]
    figures = {n: {rnd: v for (_, rnd), v in cons.groups[(n, key)].by_round(metric).items() if v} for n in names}
    rows = "every row, flagged measurements included" if flagged else "the ranked rows"
    return validation.Table(figures, METRICS[metric], f"{cons.dirs[0].run_id} {key.label} {metric}, {rows}").complete()


def table_of(path: Path, metric: str) -> validation.Table:
    if path.is_file():
        return validation.Table.from_json(json.loads(path.read_text()))
    return extract(path, metric)


def print_gate(table: validation.Table, args: argparse.Namespace) -> None:
    from mcpbench.analysis import gate

    scales = [float(x) for x in args.scales.split(",")]
    overlap = " (redrawn from the screen's rounds: correlated stages, conservative)" \
        if len(table.complete().rounds) < 2 * (args.rounds + args.confirm_rounds) else ""
    print(f"{args.replays} replays per line: screen at {gate.SCREEN_ALPHA:g} over {args.rounds} rounds, the suspected "
          f"levels confirmed one-sided at {gate.CONFIRM_ALPHA:g} over {args.confirm_rounds} new rounds{overlap}; minimum "
          f"effect {gate.MIN_EFFECT:.0%}")
    for levels in (int(x) for x in args.levels.split(",")):
        try:
            results = validation.gate_replay(table, levels, args.rounds, args.confirm_rounds, args.replays,
                                             args.seed, scales)
        except ValueError as e:
            raise SystemExit(str(e)) from None
        for r in results:
            what = "false alarms (A/A)" if r.scale == 1 else f"power at ×{r.scale:g}"
            print(f"  {levels} levels  {what:18s} screen alone {r.screened.text:32s} gate {r.failed.text:32s} "
                  f"suspicions upheld {r.held.hits} of {r.held.trials}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("extract")
    ex.add_argument("results", type=Path)
    ex.add_argument("--metric", default="cpu_ms_per_call", choices=sorted(METRICS))
    ex.add_argument("-o", "--out", type=Path)
    ex.add_argument("--flagged", action="store_true",
                    help="rows that are not publishable too (a flagged measurement's figure as it was measured)")
    nu = sub.add_parser("null")
    nu.add_argument("table", type=Path)
    nu.add_argument("--metric", default="cpu_ms_per_call", choices=sorted(METRICS))
    nu.add_argument("--only", help="SERVER,SERVER…: rank these servers only (a smaller family)")
    nu.add_argument("--rounds", type=int, default=3)
    nu.add_argument("--replays", type=int, default=1000)
    nu.add_argument("--seed", type=int, default=1)
    nu.add_argument("--scales", default="1,1.1,1.3,2")
    su = sub.add_parser("subsets")
    su.add_argument("table", type=Path)
    su.add_argument("--metric", default="cpu_ms_per_call", choices=sorted(METRICS))
    su.add_argument("--only", help="SERVER,SERVER…: rank these servers only (a smaller family)")
    su.add_argument("--rounds", type=int, default=3)
    su.add_argument("--limit", type=int, default=200)
    ga = sub.add_parser("gate")
    ga.add_argument("table", type=Path)
    ga.add_argument("--metric", default="cpu_ms_per_call", choices=sorted(METRICS))
    ga.add_argument("--only", help="SERVER,SERVER…: rank these servers only (a smaller family)")
    ga.add_argument("--levels", default="2,6")
    ga.add_argument("--rounds", type=int, default=3)
    ga.add_argument("--confirm-rounds", type=int, default=5)
    ga.add_argument("--replays", type=int, default=1000)
    ga.add_argument("--seed", type=int, default=1)
    ga.add_argument("--scales", default="1,1.2,1.5")
    args = parser.parse_args(argv)

    if args.command == "extract":
        table = extract(args.results, args.metric, args.flagged)
        text = json.dumps(table.to_json(), indent=1) + "\n"
        (args.out.write_text(text) if args.out else sys.stdout.write(text))
        print(f"{len(table.figures)} servers x {len(table.rounds)} rounds: {table.source}", file=sys.stderr)
        return
    table = table_of(args.table, args.metric)
    if args.only:
        names = args.only.split(",")
        missing = sorted(set(names) - set(table.figures))
        if missing:
            raise SystemExit(f"--only: no figures for {', '.join(missing)}")
        table = validation.Table({n: table.figures[n] for n in names}, table.higher_better,
                                 f"{table.source} — only {args.only}")
    print(f"{table.source}: {len(table.figures)} servers x {len(table.rounds)} complete rounds")
    if args.command == "null":
        scales = [float(x) for x in args.scales.split(",")]
        results = validation.replay(table, args.rounds, args.replays, args.seed, scales, (True, False))
        print(f"{args.replays} replays of {args.rounds}-round runs per line (each a family of "
              f"{len(table.figures) + 1} servers, Holm over its pairs, minimum effect {stats.MIN_EFFECT:.0%}):")
        for r in results:
            what = "false separations (A/A)" if r.scale == 1 else f"power at ×{r.scale:g}"
            print(f"  {'moderated' if r.moderated else 'plain paired t':15s} {what:24s} {r.separated.text}")
        null = next((r for r in results if r.scale == 1 and r.moderated), None)
        if null is not None:
            worst = sorted(null.by_server.items(), key=lambda kv: -kv[1].rate)[:5]
            print("  moderated A/A, the servers most often separated from their twin: "
                  + ", ".join(f"{n} {rate.hits}/{rate.trials}" for n, rate in worst))
    elif args.command == "gate":
        print_gate(table, args)
    else:
        for moderate in (True, False):
            classes, near = validation.subset_power(table, args.rounds, limit=args.limit, moderate=moderate)
            print(f"  {'moderated' if moderate else 'plain paired t':15s} "
                  + "; ".join(f"pairs ≥ ×{c.ratio:g} ({c.pairs}): {c.separated.text}" for c in classes)
                  + f"; pairs within {stats.MIN_EFFECT:.0%}: {near.text}")


if __name__ == "__main__":
    main()
