"""`mcpbench soak`: the suite's builds, starts, verification and records, with one long constant-load
measurement per server whose process tree is read at 1 Hz, judged by soak.py's criteria (soak.json)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from statistics import median
from typing import Any

from rich.console import Console

from . import model
from .capacity import CAPACITY_FILE, DOUBT_FLAGS as SOAK_DOUBTS
from .config import RunConfig
from .manifest import ServerSpec
from .measure import PROCESSES_FILE, Harness, MeasurementFailed, measure
from .model import SCHEMA, ResultsError
from .results import write_checked
from .scenarios import OpenLoad
from .session import ServerFailed, ServerUnavailable
from .soak import SOAK_FILE, SoakError, SoakPlan, judge
from .suite import Suite, _ServerState


def _capacity(run_dir: Path, server: str, mode: str) -> float | None:
    """The server's median capacity over a capacity run's rounds in `mode` (None: it has none)."""
    path = run_dir / server / CAPACITY_FILE
    if not path.is_file():
        return None
    try:
        document = model.upgrade_document(model.Capacity, model.read_json(path), path)
    except ResultsError as exc:
        raise SoakError(str(exc)) from None
    values = [r["capacity_calls_per_s"] for r in document["rounds"] if r["mode"] == mode and r["capacity_calls_per_s"]]
    return median(values) if values else None


def capacity_rates(runs: list[Path], servers: list[str], mode: str, share: float) -> dict[str, tuple[float, str]]:
    """share x each server's measured capacity, from the first of `runs` (newest first) that has one;
    SoakError naming the servers none has."""
    rates, missing = {}, []
    for server in servers:
        found = next(((run, c) for run in runs if (c := _capacity(run, server, mode))), None)
        if found is None:
            missing.append(server)
            continue
        run, capacity = found
        rates[server] = (round(share * capacity, 1), f"{share:g} x capacity {capacity:g} ({run.name})")
    if missing:
        where = str(runs[0]) if len(runs) == 1 else "the results"
        raise SoakError(f"no {mode} capacity in {where} for {', '.join(missing)}: give --rate, or run "
                        f"`mcpbench capacity {' '.join(missing)}` first")
    return rates


class SoakSuite(Suite):
    def __init__(self, config: RunConfig, plan: SoakPlan, rates: dict[str, tuple[float, str]],
                 specs: list[ServerSpec], results_root: Path, console: Console | None = None):
        super().__init__(config, specs, results_root, console)
        self.plan = plan
        self.rates = rates  # server -> (tool calls/s, where it came from)
        self.results: dict[str, dict[str, Any]] = {}  # server -> soak.json
        self._stop = threading.Event()

    def _config_record(self) -> dict[str, Any]:
        return {**super()._config_record(), "soak": self.plan.record()}

    def _measure_server(self, state: _ServerState, round_index: int, position: int) -> None:
        assert self.record is not None and self.harness is not None
        spec = state.spec
        unsupported = self._unsupported_modes(spec)
        mode = self.config.modes[0]
        if mode in unsupported:
            raise ServerUnavailable("protocol", f"{mode}: {unsupported[mode]}")
        self.record.update_server(spec.name, status="running")
        rate, source = self.rates[spec.name]
        load = OpenLoad(mode, max(self.config.vus), rate)
        harness = Harness(self.bench, self.harness.generator, self.plan.timing, self.console)  # type: ignore[arg-type]
        out_dir = self.directory / spec.name / f"soak-{load.label}-r{round_index}"
        self.console.print(f"[cyan]{spec.name}[/] soak: {rate:g} calls/s ({source}) for "
                           f"{self.plan.duration_s / 60:g} min after a {self.plan.warmup_s:g} s warm-up "
                           "(Ctrl-C ends it early and keeps what was measured)")
        with self._started(state, out_dir) as started, self._first_interrupt_stops():
            try:
                summary = measure(harness, started.server, load, out_dir, self._limit(load), probe_processes=True,
                                  stop_requested=self._stop.is_set)
            except MeasurementFailed as exc:
                raise ServerFailed("load", str(exc)) from exc
        interrupted = self._stop.is_set()
        try:
            summary = self._record_measurement(state, started, load, round_index, position, summary, out_dir)
        finally:
            # Judged whatever happened to the measurement: a leak that killed the server is the finding.
            self._record_soak(spec.name, load, rate, source, summary, out_dir, interrupted)
        if interrupted:
            raise KeyboardInterrupt

    @contextmanager
    def _first_interrupt_stops(self) -> Iterator[None]:
        """The first Ctrl-C ends the soak as if its time were up (what it measured is judged and kept);
        a second one interrupts at once."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def first(signum, frame) -> None:  # noqa: ARG001 - a signal handler's signature
            self._stop.set()
            self.console.print("[bold yellow]Stopping the soak: judging what was measured "
                               "(Ctrl-C again to abandon it)[/]")
            signal.signal(signal.SIGINT, signal.default_int_handler)

        previous = signal.signal(signal.SIGINT, first)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)

    def _record_soak(self, server: str, load: OpenLoad, rate: float, source: str, summary: dict[str, Any],
                     out_dir: Path, interrupted: bool) -> None:
        processes = model.read_processes(out_dir / PROCESSES_FILE)
        samples_path = out_dir / "samples.csv.gz"
        if not samples_path.is_file():
            return
        samples = model.read_samples(samples_path)
        window = (summary["window"]["start_s"], summary["window"]["end_s"])
        verdict = judge(processes, samples, window, self.plan.errors_max, self.plan.timing.request_timeout_s,
                        status=summary["status"], reason=summary.get("reason"))
        document = {"schema": SCHEMA, "server": server, "mode": load.mode, "rate": rate, "rate_from": source,
                    "measurement": out_dir.name, "status": summary["status"], "interrupted": interrupted,
                    "doubts": [f for f in summary.get("flags", []) if f in SOAK_DOUBTS or f.startswith("bound:")],
                    **verdict}
        write_checked(self.directory / server / SOAK_FILE, document)
        self.results[server] = document
        colour = {"pass": "green", "fail": "red"}.get(verdict["verdict"], "yellow")
        doubts = f" (on {', '.join(document['doubts'])})" if document["doubts"] else ""
        self.console.print(f"  [bold]{server}[/] soak over {verdict['window']['measured_s'] / 60:.1f} min: "
                           f"[{colour}]{verdict['verdict']}[/]{doubts}")
        for name, criterion in verdict["criteria"].items():
            self.console.print(f"    {name}: {criterion['verdict']} — {criterion['detail']}")
        slope = verdict["slopes"]["rss"]
        if slope:
            self.console.print(f"    RSS slope {slope['mb_per_h']:+.1f} MiB/h "
                               f"[{slope['ci_low']:+.1f}, {slope['ci_high']:+.1f}]")
