"""The listeners the CLI puts on a run's events (experiments/events.py): the console, which says each event
as a line (or a spinner while something takes a while), and the JSON-lines stream of `--events FILE|-`."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import IO, Any

from rich.console import Console
from rich.markup import escape
from rich.status import Status

from mcpbench.experiments import events as ev

CHECK_COLOURS = {"pass": "green", "warn": "yellow", "fail": "red", "unavailable": "yellow"}


class ConsoleListener:
    """The run as the console shows it: one method per event it says something about; the rest pass."""

    def __init__(self, console: Console):
        self.console = console
        self._status: Status | None = None
        self._says: dict[type[ev.Event], Callable[[Any], None]] = {
            ev.RunMarkedAbandoned: self._abandoned, ev.Warned: self._warned, ev.RunStarted: self._started_run,
            ev.LimitsNotApplied: self._no_limits, ev.RunEnded: self._ended, ev.CalibrationBegun: self._calibrating,
            ev.InfraRestarted: self._restarted, ev.RoundBegun: self._round, ev.ServerBuilt: self._built,
            ev.ModeUnsupported: self._unsupported, ev.RuntimeFound: self._runtime, ev.ServerStarted: self._started,
            ev.ServerVerified: self._verified, ev.ConformanceRan: self._conformance, ev.Measured: self._measured,
            ev.MeasurementKept: self._kept, ev.SetAside: self._set_aside, ev.ServerFailed: self._failed,
            ev.ActivityBegun: self._begun, ev.ActivityEnded: self._activity_ended,
        }

    def __call__(self, event: ev.Event) -> None:
        say = self._says.get(type(event))
        if say is not None:
            say(event)

    def _abandoned(self, e: ev.RunMarkedAbandoned) -> None:
        self.console.print(f"[yellow]{e.directory}: its orchestrator is gone; marked abandoned (last finished "
                           f"measurement: {e.last_measurement or 'none'}). `mcpbench run --resume {e.directory}` "
                           "continues it.[/]")

    def _warned(self, e: ev.Warned) -> None:
        self.console.print(f"[yellow]{e.text}[/]")

    def _started_run(self, e: ev.RunStarted) -> None:
        if e.profile_note:
            self.console.print(f"[yellow]Resource profile: {e.profile_note}[/]")
        if e.resumed_status is not None:
            self.console.print(f"Resuming: [bold]{e.directory}[/] ({e.resumed_status}; {e.resumed_note})")
        else:
            self.console.print(f"Results: [bold]{e.directory}[/]")

    def _no_limits(self, e: ev.LimitsNotApplied) -> None:
        self.console.print(f"[bold red]WARNING: CPU/memory limits cannot be applied ({e.reason}). The servers run "
                           "WITHOUT them; every result is flagged cgroup-not-applied.[/]")

    def _ended(self, e: ev.RunEnded) -> None:
        if e.status == "interrupted":
            self.console.print("[bold red]Interrupted: stopping everything; finished measurements are kept.[/]")

    def _calibrating(self, e: ev.CalibrationBegun) -> None:
        self.console.print(f"[bold]Calibrating the harness[/] ({e.reason})")

    def _restarted(self, e: ev.InfraRestarted) -> None:
        self.console.print("  [yellow]the calibration was not valid; restarting the infrastructure and measuring "
                           "again[/]" if e.cause == "calibration" else
                           "  [yellow]infrastructure restarted and re-seeded; going on[/]")

    def _round(self, e: ev.RoundBegun) -> None:
        if e.rounds > 1:
            of = f"at most {e.rounds}" if e.auto else f"{e.rounds}"
            self.console.print(f"[bold]Round {e.round} ({of}):[/] " + ", ".join(e.servers))

    def _built(self, e: ev.ServerBuilt) -> None:
        if e.status == "ok":
            self.console.print(f"[green]✓[/] built {e.server} in {e.seconds or 0:.1f} s")
        else:
            colour = "yellow" if e.status == "unavailable" else "red"
            self.console.print(f"[{colour}]✗ {e.server}: {e.status}:[/] {escape(e.reason or '')}")

    def _unsupported(self, e: ev.ModeUnsupported) -> None:
        self.console.print(f"[yellow]{e.server}: not measured in mode {e.mode}:[/] {escape(e.reason)}")

    def _runtime(self, e: ev.RuntimeFound) -> None:
        self.console.print(f"[cyan]{e.server}[/] runs on {e.version}")

    def _started(self, e: ev.ServerStarted) -> None:
        rss = f" (RSS {e.idle_rss_mb:.1f} MiB)" if e.idle_rss_mb is not None else ""
        seeded = f", Redis seeded in {e.seed_s:.2f} s" if e.seed_s is not None else ""
        self.console.print(f"[cyan]{e.server}[/] {e.measurement}: ready in {e.startup_s:.2f} s, "
                           f"idle {e.idle_mem_mb or 0:.1f} MiB{rss}{seeded}")

    def _verified(self, e: ev.ServerVerified) -> None:
        for check in e.checks:
            if check.status != "pass":
                self.console.print(f"  [{CHECK_COLOURS[check.status]}]{check.status}[/] {check.name}: "
                                   f"{escape(check.reason or '')}")
        self.console.print(f"  verify: [bold]{e.status}[/] ({len(e.checks)} checks)")

    def _conformance(self, e: ev.ConformanceRan) -> None:
        self.console.print(f"  conformance: {e.passed}/{e.applicable} applicable scenarios pass")

    def _measured(self, e: ev.Measured) -> None:
        if e.status == "invalid":
            self.console.print(f"  [bold red]{e.server} {e.measurement} invalid[/] ({e.phase}): {e.reason}")
        elif e.status == "ok" and e.shown:
            nan = float("nan")
            self.console.print(
                f"  [bold]{e.server}[/] {e.measurement}: {e.tool_calls_per_s or 0:.1f} tool calls/s, "
                f"p50 {e.p50_ms if e.p50_ms is not None else nan:.2f} ms, "
                f"p99 {e.p99_ms if e.p99_ms is not None else nan:.2f} ms, errors {e.error_rate or 0:.2%}, "
                f"CPU {e.cpu_avg_pct or 0:.0f} %, peak mem {e.mem_peak_mb or 0:.1f} MiB, "
                f"flags {', '.join(e.flags) or '-'}")

    def _kept(self, e: ev.MeasurementKept) -> None:
        self.console.print(f"  [dim]{e.server} {e.measurement}: kept (measured before the resume)[/]")

    def _set_aside(self, e: ev.SetAside) -> None:
        when = "after the other servers of its pass" if e.later else "on a fresh start"
        self.console.print(f"  [yellow]{e.server} {e.measurement}: the host was disturbed ({e.why}); "
                           f"measured again {when}[/]")

    def _failed(self, e: ev.ServerFailed) -> None:
        reason = escape(e.reason.splitlines()[0]) if e.reason else ""
        self.console.print(f"[red]✗ {e.server} {e.status} in {e.phase}:[/] {reason}")

    def _begun(self, e: ev.ActivityBegun) -> None:
        self._activity_ended(None)
        self._status = self.console.status(e.text)
        self._status.start()

    def _activity_ended(self, _: ev.ActivityEnded | None) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None


class JsonLinesListener:
    """`--events FILE|-`: each event as one JSON line, flushed as it happens (a CI log or a live view follows
    the file while the run goes on)."""

    def __init__(self, stream: IO[str]):
        self.stream = stream

    def __call__(self, event: ev.Event) -> None:
        self.stream.write(json.dumps(event.to_json(), ensure_ascii=False) + "\n")
        self.stream.flush()
