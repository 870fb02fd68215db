"""What a shorter adaptive warm-up would cost, and what watching the server's CPU buys, on recorded runs
(issues 21 and 34):

    .venv/bin/python scripts/warmup_floor.py RESULTS… [--spans 4,3] [--cpu] [--reference-s 10]

Every measurement with a window of at least 15 s is replayed through the real warm-up rule
(analysis.warmup.steady_start) with the quick profile's timing but shorter steady spans (a span of S s means
a minimum warm-up of 2 S s), and the 5 s window each rule would have started is analysed again by the real
analysis (analysis.summary.reanalyze). Per server: the mean warm-up, and the mean shift of CPU ms per call in
that 5 s window against the same measurement from 5 s into its recorded window to its end (the server warmer
by then). The recorded rule's own shift is the first column: a rule that starts earlier than it adds its
difference to the quick profile's bias.

--cpu replays, at the profile's own span, the rule without the server's CPU ("latency") and with it ("latency +
CPU", analysis.warmup.cpu_steady, what the live rule does now) on the same recorded measurements, and compares
each rule's 5 s window with the last --reference-s seconds of the recorded window (the server as warm as it got):
the mean shift, the round-to-round CV of CPU ms per call, and the warm-up each rule spent. Record long windows
for it (e.g. `mcpbench run … --quick --duration 40`): a rule whose window would end past the recording is
left out for that measurement.

--earlier replays, on a first run as it was recorded (5 s windows), rules that may start the window sooner than
the live one (shorter spans, more of them, tighter tolerances: EARLIER_RULES), each on the measurement's own
samples and server CPU: the warm-up each would have spent, and its 5 s window's CPU ms per call against the
recorded window's (the shift a sooner window adds, per server), with the round-to-round CV of each. A rule that
ends its warm-up later than the live rule did is taken at the live rule's window.
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

from mcpbench.analysis.summary import reanalyze
from mcpbench.analysis.warmup import CPU_RULE, CpuRule, per_second_cpu, steady_start
from mcpbench.results.read import read_json, read_resources
from mcpbench.results.layout import MeasurementDir
from mcpbench.results.read import read_samples
from mcpbench.results.upgrades import upgrade_context
from mcpbench.loads.timing import QUICK_TIMING
from mcpbench.workload.tools import TOOL_NAMES
from recorded_runs import ok_measurements

WINDOW_S = 5.0
# --cpu: the ways of watching the server's CPU replayed side by side (the first is the live rule's)
CPU_RULES = (CPU_RULE, CpuRule(spans=3), CpuRule(factor=2), CpuRule(spans=3, tolerance=0.1))
# --earlier: (name, steady span s, CPU rule) of rules that may end a warm-up sooner than the live one's 2 x 5 s
EARLIER_RULES = (("2x3 s", 3, CPU_RULE), ("3x3 s", 3, CpuRule(spans=3)), ("2x4 s", 4, CPU_RULE),
                 ("3x2 s", 2, CpuRule(spans=3)), ("4x2 s", 2, CpuRule(spans=4)),
                 ("3x3 s 10 %", 3, CpuRule(spans=3, tolerance=0.1)))


def print_rules(found: dict) -> None:
    """Per server, each rule's mean warm-up, mean shift and round-to-round CV of CPU ms per call."""
    for server, rules in sorted(found.items()):
        print(f"  {server}: " + "; ".join(
            f"{rule} {statistics.fmean(w for w, _, _ in v):.1f} s {statistics.fmean(d for _, d, _ in v):+.1%}"
            + (f" CV {statistics.stdev(x for _, _, x in v) / statistics.fmean(x for _, _, x in v):.1%}"
               if len(v) > 1 else "") + f" (n={len(v)})"
            for rule, v in rules.items()))


def earlier(results: list[Path]) -> None:
    """--earlier: each EARLIER_RULES rule replayed on a first run's measurements, against the recorded window."""
    found: dict = defaultdict(lambda: defaultdict(list))  # server -> rule -> [(warm-up s, shift, CPU ms/call)]
    for server, directory, summary in ok_measurements(results, WINDOW_S):
        context_path = MeasurementDir(directory).context
        context = upgrade_context(read_json(context_path), context_path)
        if context.warmup is None or context.warmup.steady is None or context.kind != "open":
            continue  # a fixed warm-up (the sizing loads) has no rule to replay
        ramp = summary["window"]["start_s"] - context.warmup.used_s
        recorded = summary["efficiency"]["cpu_ms_per_call"]
        if not recorded:
            continue
        found[server]["live 2x5 s"].append((context.warmup.used_s, 0.0, recorded))
        counts, latencies = per_second(directory)
        cpu = server_cpu(directory, len(counts))
        for name, span, rule in EARLIER_RULES:
            timing = replace(QUICK_TIMING, ramp_up_s=ramp, warmup_s=span * rule.spans, steady_span_s=span)
            decision = steady_start(counts, timing, len(counts), latencies, cpu, rule)
            used = context.warmup.used_s if decision is None else min(decision.used_s, context.warmup.used_s)
            value = cpu_ms(directory, (ramp + used, ramp + used + WINDOW_S)) if used < context.warmup.used_s \
                else recorded
            if value:
                found[server][name].append((used, value / recorded - 1, value))
    print("server: rule mean warm-up s, mean CPU ms/call shift of its 5 s window vs the recorded window, "
          "round-to-round CV")
    print_rules(found)
    every = defaultdict(list)
    for rules in found.values():
        for rule, v in rules.items():
            every[rule] += [w for w, _, _ in v]
    print("all servers, mean warm-up: " + "; ".join(f"{rule} {statistics.fmean(w):.1f} s (n={len(w)})"
                                                   for rule, w in every.items()))


def per_second(directory: Path) -> tuple[list[int], list[list[float]]]:
    """Successful tool calls per second since the scenario start and their latencies: what the live rule saw."""
    samples = read_samples(MeasurementDir(directory).samples)
    calls = samples[(samples["ok"] == 1) & samples["tool"].isin(TOOL_NAMES)]
    seconds = int(calls["t_s"].max()) + 1 if len(calls) else 0
    counts, latencies = [0] * seconds, [[] for _ in range(seconds)]
    for t, ms in zip(calls["t_s"], calls["call_ms"]):
        counts[int(t)] += 1
        latencies[int(t)].append(float(ms))
    return counts, latencies


def server_cpu(directory: Path, seconds: int) -> list[float | None]:
    """The server's CPU per second since the scenario start, as the live rule reads it."""
    frame = read_resources(MeasurementDir(directory).resources)
    frame = frame[frame["component"] == "server"]
    return per_second_cpu(list(zip(frame["t_s"].astype(float), frame["cpu_pct"].astype(float))), seconds)


def cpu_ms(directory: Path, window: tuple[float, float]) -> float | None:
    return reanalyze(directory, window).efficiency.cpu_ms_per_call


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", type=Path)
    parser.add_argument("--spans", default="4,3", help="steady spans to try, seconds (the quick profile's is 5)")
    parser.add_argument("--cpu", action="store_true", help="replay the rule with and without the server's CPU")
    parser.add_argument("--reference-s", type=float, default=10.0,
                        help="--cpu: the last this many seconds of the recorded window are the reference")
    parser.add_argument("--earlier", action="store_true",
                        help="rules that may start the window sooner, against a first run's recorded windows")
    args = parser.parse_args()
    if args.earlier:
        earlier(args.results)
        return
    spans = [] if args.cpu else [float(s) for s in args.spans.split(",")]
    # server -> rule -> [(warm-up s, CPU ms/call shift, CPU ms/call)]
    found: dict = defaultdict(lambda: defaultdict(list))
    for server, directory, summary in ok_measurements(args.results, 3 * WINDOW_S):
        start, end = summary["window"]["start_s"], summary["window"]["end_s"]
        context_path = MeasurementDir(directory).context
        warmup = upgrade_context(read_json(context_path), context_path).warmup
        assert warmup is not None and warmup.used_s is not None  # a server's measurement records its warm-up
        ramp = start - warmup.used_s
        reference = cpu_ms(directory, (end - args.reference_s, end) if args.cpu else (start + WINDOW_S, end))
        if not reference:
            continue
        first = cpu_ms(directory, (start, start + WINDOW_S))
        found[server]["recorded"].append((warmup.used_s, first / reference - 1, first))
        counts, latencies = per_second(directory)
        rules = [(f"{span:g} s spans", replace(QUICK_TIMING, ramp_up_s=ramp, warmup_s=2 * span, steady_span_s=span),
                  None, CPU_RULE) for span in spans]
        if args.cpu:
            timing = replace(QUICK_TIMING, ramp_up_s=ramp)
            cpu = server_cpu(directory, len(counts))
            rules = [("latency", timing, None, CPU_RULE)] + [
                (f"CPU {rule.spans}x{rule.factor * timing.steady_span_s:g} s", timing, cpu, rule) for rule in CPU_RULES]
        for rule, timing, cpu, cpu_rule in rules:
            decision = steady_start(counts, timing, len(counts) - 3, latencies, cpu, cpu_rule)
            if decision is None:
                continue
            begin = ramp + decision.used_s
            if begin + WINDOW_S > end:
                continue
            value = cpu_ms(directory, (begin, begin + WINDOW_S))
            found[server][rule].append((decision.used_s, value / reference - 1, value))
    what = (f"the last {args.reference_s:g} s of the recorded window" if args.cpu
            else "the rest of the recorded window")
    print(f"server: rule mean warm-up s, mean CPU ms/call shift of its 5 s window vs {what}, round-to-round CV")
    print_rules(found)


if __name__ == "__main__":
    main()
