"""The run's events (experiments/events.py): each knows its JSON, the console says them as it always did, the
JSON-lines listener writes one line each, docs/events.md lists them all, and a new event and a new listener
are added from outside without touching the runner."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

from rich.console import Console

from mcpbench.experiments import events as ev
from mcpbench.experiments.listeners import ConsoleListener, JsonLinesListener

DOC = Path(__file__).resolve().parents[2] / "docs" / "events.md"


def console_text(*events: ev.Event) -> list[str]:
    console = Console(record=True, width=300, force_terminal=False)
    listener = ConsoleListener(console)
    for event in events:
        listener(event)
    return console.export_text().splitlines()


def test_every_event_is_documented_and_the_page_names_no_other() -> None:
    ours = {name for name, cls in ev.EVENTS.items() if cls.__module__ == ev.__name__}
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", DOC.read_text(encoding="utf-8"), re.MULTILINE))
    assert len(ours) >= 20
    assert documented == ours


def test_an_event_round_trips_through_its_json_line() -> None:
    event = ev.Measured(server="go", measurement="session-5vu-r1", status="ok", tool_calls_per_s=812.5,
                        p50_ms=1.2, p99_ms=4.5, error_rate=0.0, cpu_avg_pct=96.0, mem_peak_mb=14.2, flags=["noisy-host"])
    line = json.loads(json.dumps(event.to_json()))
    assert line["event"] == "measured" and line["tool_calls_per_s"] == 812.5 and line["time"].endswith("Z")
    assert ev.Event.from_json(line) == event


def test_a_line_of_no_known_event_is_refused() -> None:
    try:
        ev.Event.from_json({"event": "no_such_event"})
    except ValueError as exc:
        assert "no_such_event" in str(exc)
    else:
        raise AssertionError("an unknown event was read")


def test_the_console_says_each_event_as_the_runner_printed_it() -> None:
    assert console_text(
        ev.RunStarted(run_id="r", directory="/tmp/r", experiment="run", profile_note="2 CPUs asked, 1 here"),
        ev.RoundBegun(round=2, rounds=5, auto=True, servers=["go", "python"]),
        ev.ServerBuilt(server="go", status="ok", seconds=3.04),
        ev.ServerBuilt(server="swift", status="unavailable", seconds=0.0, reason="no swift toolchain"),
        ev.ServerStarted(server="go", measurement="session-5vu-r1", startup_s=0.123, idle_mem_mb=5.0,
                         idle_rss_mb=7.25, seed_s=0.5),
        ev.ServerVerified(server="go", status="warn", checks=[ev.VerifyCheck(name="start", status="pass"),
                                                              ev.VerifyCheck(name="tools", status="warn", reason="x")]),
        ev.Measured(server="go", measurement="session-5vu-r1", status="ok", tool_calls_per_s=812.54, p50_ms=1.234,
                    p99_ms=4.5, error_rate=0.001, cpu_avg_pct=96.4, mem_peak_mb=14.25, flags=[]),
        ev.Measured(server="go", measurement="open-100rps-r1", status="ok", tool_calls_per_s=100.0, shown=False),
        ev.Measured(server="go", measurement="session-5vu-r2", status="invalid", phase="infra", reason="Redis died"),
        ev.InfraRestarted(cause="measurement"),
        ev.ServerFailed(server="crasher", status="failed", phase="start", reason="boom\nmore"),
        ev.RunEnded(status="interrupted", error=None, directory="/tmp/r", measurements=3),
    ) == [
        "Resource profile: 2 CPUs asked, 1 here",
        "Results: /tmp/r",
        "Round 2 (at most 5): go, python",
        "✓ built go in 3.0 s",
        "✗ swift: unavailable: no swift toolchain",
        "go session-5vu-r1: ready in 0.12 s, idle 5.0 MiB (RSS 7.2 MiB), Redis seeded in 0.50 s",
        "  warn tools: x",
        "  verify: warn (2 checks)",
        "  go session-5vu-r1: 812.5 tool calls/s, p50 1.23 ms, p99 4.50 ms, errors 0.10%, CPU 96 %, peak mem 14.2 MiB, "
        "flags -",
        "  go session-5vu-r2 invalid (infra): Redis died",
        "  infrastructure restarted and re-seeded; going on",
        "✗ crasher failed in start: boom",
        "Interrupted: stopping everything; finished measurements are kept.",
    ]


def test_one_round_is_not_announced_and_a_complete_run_ends_quietly() -> None:
    assert console_text(ev.RoundBegun(round=1, rounds=1, auto=False, servers=["go"]),
                        ev.RunEnded(status="complete", error=None, directory="/tmp/r", measurements=1)) == []


def test_an_event_and_a_listener_added_from_outside_reach_the_stream() -> None:
    class Sampled(ev.Event):  # a new event: its module alone
        name = "test_sampled"
        value: float

    heard: list[ev.Event] = []
    stream = io.StringIO()
    bus = ev.Events(heard.append, JsonLinesListener(stream))
    with bus.activity("building go…"):
        bus.emit(Sampled(value=1.5))
    assert [type(e) for e in heard] == [ev.ActivityBegun, Sampled, ev.ActivityEnded]
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [line["event"] for line in lines] == ["activity_begun", "test_sampled", "activity_ended"]
    assert ev.Event.from_json(lines[1]) == heard[1]
