"""What the runner says happened, as typed events (Locust's event hooks between its runners and what prints):
the runner emits each one on an `Events` bus, and every listener — the console (experiments/listeners.py), the
`--events FILE|-` JSON-lines stream, a CI log, a live view — reads the same objects. The runner itself prints
nothing. Each event knows its JSON: one line of `--events`, `{"event": NAME, "time": …, …its fields}`
(docs/events.md lists them; a test keeps that page and EVENTS in step)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field


def _now() -> datetime:
    return datetime.now(UTC)


class Event(BaseModel):
    """One thing that happened in a run. A subclass names itself (`name`, the JSON's `event`) and registers
    in EVENTS by being defined."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: ClassVar[str]
    time: datetime = Field(default_factory=_now, description="when it happened (UTC)")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__:
            EVENTS[cls.name] = cls

    def to_json(self) -> dict[str, Any]:
        """The event as one `--events` line holds it."""
        return {"event": self.name, **self.model_dump(mode="json")}

    @classmethod
    def from_json(cls, line: dict[str, Any]) -> Event:
        """An event back from its JSON (a consumer of `--events`): the class its `event` names."""
        fields = dict(line)
        kind = EVENTS.get(str(fields.pop("event", "")))
        if kind is None:
            raise ValueError(f"not a run event: {line.get('event')!r}")
        return kind.model_validate(fields)


# Every event type by its JSON name, filled as the classes below are defined (and by any defined elsewhere).
EVENTS: dict[str, type[Event]] = {}


# -- the run ----------------------------------------------------------------------------------------------------
class RunStarted(Event):
    name = "run_started"
    run_id: str
    directory: str
    experiment: str
    profile_note: str | None = Field(None, description="the resource profile's caveat, when it has one")
    resumed_status: str | None = Field(None, description="resuming: how the run had ended before")
    resumed_note: str | None = Field(None, description="resuming: what is kept and what is measured again")


class RunMarkedAbandoned(Event):
    """An earlier run under the same results directory whose orchestrator died without a word."""

    name = "run_marked_abandoned"
    directory: str
    last_measurement: str | None


class Warned(Event):
    """A sentence for whoever watches the run that no other event carries (an unreadable run.json, a
    calibration measured again, a what-if measured with the checks it fails)."""

    name = "warned"
    text: str


class LimitsNotApplied(Event):
    name = "limits_not_applied"
    reason: str


class RunEnded(Event):
    name = "run_ended"
    status: str = Field(description="complete, interrupted or failed (run.json `status`)")
    error: str | None
    directory: str
    measurements: int = Field(description="measurements finished and kept")


# -- the harness ------------------------------------------------------------------------------------------------
class CalibrationBegun(Event):
    name = "calibration_begun"
    reason: str


class InfraRestarted(Event):
    """Redis and the API service started anew and re-seeded: a calibration they broke is measured again, a
    measurement they invalidated is kept and said."""

    name = "infra_restarted"
    cause: Literal["calibration", "measurement"]


class RoundBegun(Event):
    name = "round_begun"
    round: int
    rounds: int = Field(description="the rounds asked for (the most, with --rounds auto)")
    auto: bool = Field(description="--rounds auto: `rounds` is a ceiling")
    servers: list[str] = Field(description="this round's order")


# -- one server -------------------------------------------------------------------------------------------------
class ServerBuilt(Event):
    name = "server_built"
    server: str
    status: str = Field(description="ok, failed, or unavailable (this machine lacks its toolchain)")
    seconds: float | None
    reason: str | None = None


class ModeUnsupported(Event):
    name = "mode_unsupported"
    server: str
    mode: str
    reason: str


class RuntimeFound(Event):
    name = "runtime_found"
    server: str
    version: str


class ServerStarted(Event):
    name = "server_started"
    server: str
    measurement: str
    startup_s: float
    idle_mem_mb: float | None
    idle_rss_mb: float | None
    seed_s: float | None = Field(description="Redis re-seeded before the start, seconds (null: the server uses none)")


class VerifyCheck(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    status: str
    reason: str | None = None


class ServerVerified(Event):
    name = "server_verified"
    server: str
    status: str = Field(description="pass, warn or fail (verify.json)")
    checks: list[VerifyCheck]


class ConformanceRan(Event):
    name = "conformance_ran"
    server: str
    passed: int
    applicable: int


class WarmedUp(Event):
    """The closed-model pre-warm before an open-model load (measure.prewarm)."""

    name = "warmed_up"
    server: str
    measurement: str
    seconds: float


class Measured(Event):
    name = "measured"
    server: str
    measurement: str
    status: str = Field(description="ok, invalid or failed (summary.json)")
    phase: str | None = None
    reason: str | None = None
    tool_calls_per_s: float | None = None
    p50_ms: float | None = None
    p99_ms: float | None = None
    error_rate: float | None = None
    cpu_avg_pct: float | None = None
    mem_peak_mb: float | None = None
    flags: list[str] = Field(default_factory=list)
    shown: bool = Field(True, description="the experiment prints its own line for it (capacity steps): False")


class MeasurementKept(Event):
    """Resuming: a measurement finished before the stop, kept and not measured again."""

    name = "measurement_kept"
    server: str
    measurement: str


class SetAside(Event):
    """A measurement the host disturbed, kept as <dir>.disturbed and measured again on a fresh start: now, or
    (`later`: its retake was disturbed too) at the end of its pass (after the other servers of it)."""

    name = "set_aside"
    server: str
    measurement: str
    why: str
    later: bool = False


class ServerFailed(Event):
    """A server's part of the run ended (it failed, or it cannot be measured here)."""

    name = "server_failed"
    server: str
    status: str = Field(description="failed or unavailable")
    phase: str
    reason: str | None


# -- what takes a while (the console shows a spinner) ------------------------------------------------------------
class ActivityBegun(Event):
    name = "activity_begun"
    text: str


class ActivityEnded(Event):
    name = "activity_ended"
    text: str


Listener = Callable[[Event], None]


class Events:
    """The bus: every event emitted reaches each listener in the order they were added."""

    def __init__(self, *listeners: Listener):
        self.listeners: list[Listener] = list(listeners)

    def add(self, listener: Listener) -> None:
        self.listeners.append(listener)

    def emit(self, event: Event) -> None:
        for listener in self.listeners:
            listener(event)

    @contextmanager
    def activity(self, text: str) -> Iterator[None]:
        """Something that takes a while (a build, verify): begun, then ended however it ends."""
        self.emit(ActivityBegun(text=text))
        try:
            yield
        finally:
            self.emit(ActivityEnded(text=text))
