"""`mcpbench soak`: per server, one long constant-load measurement whose process tree is read at 1 Hz, judged
by analysis/soak.py's criteria (soak.json): RSS growth, file descriptors, threads, p99 drift, errors."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from statistics import median
from typing import Optional

from mcpbench.analysis.capacity import DOUBT_FLAGS as SOAK_DOUBTS
from mcpbench.analysis.soak import (
    DEFAULT_SHARE,
    FULL_WARMUP_S,
    QUICK_WARMUP_S,
    SoakError,
    judge,
    parse_percentage,
    soak_plan,
    soak_timing,
)
from mcpbench.analysis.summary import is_bound
from mcpbench.catalog.manifest import ServerSpec
from mcpbench.experiments.base import Experiment
from mcpbench.experiments.config import RunConfig
from mcpbench.experiments.options import (
    LOAD,
    MEASURING,
    QUICK,
    Option,
    Values,
    duration,
    modes_of,
)
from mcpbench.loads import MODE_TRANSPORT, MODES, OpenLoad
from mcpbench.results.layout import MeasurementDir, RunDir, runs_under
from mcpbench.results.model import (
    CAPACITY_FILE,
    SCHEMA,
    SOAK_FILE,
    Capacity,
    ResultsError,
    SoakResult,
    Summary,
    document,
    parsed,
)
from mcpbench.results.read import read_json, read_processes, read_samples
from mcpbench.results.upgrades import upgrade_document
from mcpbench.results.write import write_checked


def _capacity(run_dir: RunDir, server: str, mode: str) -> float | None:
    """The server's median capacity over a capacity run's rounds in `mode` (None: it has none)."""
    path = run_dir.server(server).result(CAPACITY_FILE)
    if not path.is_file():
        return None
    try:
        capacity = parsed(Capacity, upgrade_document(Capacity, read_json(path), path), path)
    except ResultsError as exc:
        raise SoakError(str(exc)) from None
    values = [r.capacity_calls_per_s for r in capacity.rounds if r.mode == mode and r.capacity_calls_per_s]
    return median(values) if values else None


def capacity_rates(runs: list[RunDir], servers: list[str], mode: str, share: float) -> dict[str, tuple[float, str]]:
    """share x each server's measured capacity, from the first of `runs` (newest first) that has one;
    SoakError naming the servers none has."""
    rates, missing = {}, []
    for server in servers:
        found = next(((run, c) for run in runs if (c := _capacity(run, server, mode))), None)
        if found is None:
            missing.append(server)
            continue
        run, capacity = found
        rates[server] = (round(share * capacity, 1), f"{share:g} x capacity {capacity:g} ({run.run_id})")
    if missing:
        where = str(runs[0].path) if len(runs) == 1 else "the results"
        raise SoakError(f"no {mode} capacity in {where} for {', '.join(missing)}: give --rate, or run "
                        f"`mcpbench capacity {' '.join(missing)}` first")
    return rates


class SoakExperiment(Experiment):
    name = "soak"
    order = 40
    help = ("Soak: a constant load held for a long time while the server's process tree is read at 1 Hz; judged "
            "on RSS growth, file descriptors, threads, p99 drift and errors (soak.json, the report's soak page).")
    options = (*MEASURING, *LOAD, *QUICK,
               Option("duration", str, "30m", "How long the load is held after the warm-up: 30m, 90s, 1h, or seconds."),
               Option("rate", Optional[float], None,
                      "Tool calls/s to offer every server (default: --share of each one's measured capacity)."),
               Option("share", float, DEFAULT_SHARE, "Without --rate: this share of the server's capacity."),
               Option("capacity_from", Optional[Path], None,
                      "The `mcpbench capacity` run to take capacities from (default: the newest that has one)."),
               Option("max_errors", str, "1%", "The error SLO: failed tool calls over the window."))

    def configure(self, values: Values, specs: list[ServerSpec]) -> RunConfig:
        self.plan = soak_plan(duration(values.get("duration") or "30m") or 0.0,
                              QUICK_WARMUP_S if values.get("quick") else FULL_WARMUP_S, values.get("rate"),
                              values.get("share", DEFAULT_SHARE),
                              parse_percentage(values.get("max_errors", "1%"), "--max-errors"))
        modes = modes_of(values, specs)
        if len(modes) != 1 or modes[0] not in MODES or MODE_TRANSPORT[modes[0]] != "http":
            raise SoakError(f"--mode {','.join(modes)!r}: a soak's load is an arrival rate over HTTP, in one mode; "
                            "choose one of " + ", ".join(m for m in MODES if MODE_TRANSPORT[m] == "http"))
        if self.plan.rate is not None:
            self.rates = {spec.name: (self.plan.rate, "given") for spec in specs}
        else:
            capacity_from, results_dir = values.get("capacity_from"), values["results_dir"]
            if capacity_from and not Path(capacity_from).is_dir():
                raise SoakError(f"--capacity-from {capacity_from}: no such directory")
            runs = [RunDir(Path(capacity_from))] if capacity_from else runs_under(Path(results_dir))[::-1]
            self.rates = capacity_rates(runs, [s.name for s in specs], modes[0], self.plan.share)
        self.results: dict[str, SoakResult] = {}  # server -> soak.json
        self._stop = threading.Event()
        return RunConfig.from_options(values, specs, soak_timing(self.plan), modes=modes, calibrate=False,
                                      load=OpenLoad.kind, soak=self.plan)

    def measure_server(self, server) -> None:
        mode = self.config.modes[0]
        rate, source = self.rates[server.name]
        load = OpenLoad(mode, max(self.config.vus), rate)
        self.console.print(f"[cyan]{server.name}[/] soak: {rate:g} calls/s ({source}) for "
                           f"{self.plan.duration_s / 60:g} min after a {self.plan.warmup_s:g} s warm-up "
                           "(Ctrl-C ends it early and keeps what was measured)")
        summary: Summary | None = None
        label = f"soak-{load.label}"
        try:
            with server.started(label) as started:
                summary = server.measure(started, load, probe_processes=True, stop_requested=self._stop.is_set)
        finally:
            # Judged whatever happened to the measurement: a leak that killed the server is the finding.
            out = server.directory(label)
            if summary is None and out.summary.is_file():
                summary = parsed(Summary, read_json(out.summary), out.summary)
            if summary is not None:
                self._record_soak(server.runner.run_dir, server.name, load, rate, source, summary, out,
                                  self._stop.is_set())
        if self._stop.is_set():
            raise KeyboardInterrupt

    @contextmanager
    def interrupts(self) -> Iterator[None]:
        """The first Ctrl-C ends the soak as if its time were up (what it measured is judged and kept);
        a second one interrupts at once."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def first(signum, frame) -> None:  # a signal handler's signature
            self._stop.set()
            self.console.print("[bold yellow]Stopping the soak: judging what was measured "
                               "(Ctrl-C again to abandon it)[/]")
            signal.signal(signal.SIGINT, signal.default_int_handler)

        previous = signal.signal(signal.SIGINT, first)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)

    def _record_soak(self, run_dir: RunDir, server: str, load: OpenLoad, rate: float, source: str,
                     summary: Summary, out: MeasurementDir, interrupted: bool) -> None:
        processes = read_processes(out.processes)
        if not out.samples.is_file():
            return
        samples = read_samples(out.samples)
        window = (summary.window.start_s, summary.window.end_s)
        judgement = judge(processes, samples, window, self.plan.errors_max, soak_timing(self.plan).request_timeout_s,
                          status=summary.status, reason=summary.reason)
        result = SoakResult(schema=SCHEMA, server=server, mode=load.mode, rate=rate, rate_from=source,
                            measurement=out.name, status=summary.status, interrupted=interrupted,
                            doubts=[f for f in summary.flags if f in SOAK_DOUBTS or is_bound(f)], **dict(judgement))
        write_checked(run_dir.server(server).result(SOAK_FILE), document(result))
        self.results[server] = result
        colour = {"pass": "green", "fail": "red"}.get(result.verdict, "yellow")
        doubts = f" (on {', '.join(result.doubts)})" if result.doubts else ""
        self.console.print(f"  [bold]{server}[/] soak over {result.window.measured_s / 60:.1f} min: "
                           f"[{colour}]{result.verdict}[/]{doubts}")
        for name, criterion in result.criteria.items():
            self.console.print(f"    {name}: {criterion.verdict} — {criterion.detail}")
        slope = result.slopes.rss
        if slope:
            self.console.print(f"    RSS slope {slope.mb_per_h:+.1f} MiB/h [{slope.ci_low:+.1f}, {slope.ci_high:+.1f}]")

    def conclude(self, runner) -> None:
        if self.results:
            self.console.print("soak verdicts: " + ", ".join(f"{s} {r.verdict}" for s, r in self.results.items()))


EXPERIMENT = SoakExperiment
