"""`mcpbench dimension`'s experiments (experiments/dimension.py, mcpbench/dimensions/) on the real catalog: which servers each measures
and with what calls — the sessions dimension holds the reference servers' sessions with the lineup's cart lookup and
refuses a server given on the command line; and the analysis's idle rule that lets a held session wait."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from mcpbench.analysis.summary import reanalysis_differences, reanalyze, unexplained_idle
from mcpbench.catalog.manifest import discover
from mcpbench.catalog.selection import select
from mcpbench.catalog.target import target_specs
from mcpbench.dimensions import dimension
from mcpbench.experiments.dimension import twins

SERVERS = Path(__file__).resolve().parents[2] / "servers"


def test_the_sessions_dimension_holds_reference_servers_with_the_lineups_cart_lookup() -> None:
    specs = select(discover(SERVERS), ["go", "rust"])
    sessions = dimension("sessions")
    assert (sessions.mode, sessions.vus, sessions.think_s, sessions.ramp_up_s) == ("persistent", "1,100,1000", 4.0, 4.0)
    measured = twins(specs, sessions, ())
    assert [s.name for s in measured] == ["go", "rust"] and all(not s.given and s.point is None for s in measured)
    for spec in measured:
        assert spec.workload is not None and spec.workload.tool_names == ("get_user_cart",)
        (call,) = spec.workload.spec.call
        assert call.arguments == {"user_id": "user-{vu%1000:05}"} and call.check  # checked as the lineup checks it
    # agent and churn call the servers as they are
    assert twins(specs, dimension("agent"), ()) == specs


def test_a_server_given_on_the_command_line_has_no_cart_to_hold_its_sessions_with(tmp_path: Path) -> None:
    workload = tmp_path / "w.toml"
    workload.write_text('[[call]]\ntool = "echo"\narguments = { message = "hi" }\n')
    (given,) = target_specs(workload, command="srv --port {port}", directory=tmp_path)
    assert given.given
    with pytest.raises(ValueError, match="only the reference servers under servers/"):
        twins([given], dimension("sessions"), ())


@pytest.mark.parametrize("think_s, idle, unexplained", [
    (0.05, [0, 1, 0, 0], 1),                        # no wait to explain it: every idle second is the generator's
    (0.0, [1, 1, 0, 1], 3),
    (10.0, [0] + [1] * 11 + [0], 0),               # one VU's 10 s wait spans at most 11 seconds' middles
    (10.0, [0] + [1] * 12 + [0], 12),              # longer: the generator sent nothing, the whole run counts
    (2.0, [1, 1, 1, 0, 1, 1, 1, 1], 4),
])
def test_idle_seconds_are_the_generators_only_past_what_the_think_time_explains(think_s, idle, unexplained) -> None:
    assert unexplained_idle(np.array(idle, dtype=bool), think_s) == unexplained


HELD = Path(__file__).resolve().parents[1] / "fixtures" / "recorded" / "held-session-rust-1vu"


def test_a_recorded_held_session_waits_its_think_time_and_is_no_idle_generator(tmp_path: Path) -> None:
    # rust holding 1 session, a call every 4 s: 3 calls in its 10 s window, 7 seconds without one
    held = reanalyze(HELD)
    assert held.status == "ok" and held.checks is not None
    assert held.checks.problems == [] and held.checks.empty_seconds == 7
    assert reanalysis_differences(HELD) == []
    # the same samples from a load without think time: the generator sent nothing for 7 s, its own fault
    copy = tmp_path / "m"
    shutil.copytree(HELD, copy)
    context = json.loads((copy / "context.json").read_text())
    (copy / "context.json").write_text(json.dumps({**context, "think_time_s": 0.05}))
    busy = reanalyze(copy)
    assert busy.status == "invalid" and busy.checks is not None and busy.checks.idle_seconds == 7
    assert busy.reason is not None and busy.reason.startswith("7 second(s) of the window have no sample and no call in flight")


def test_the_progress_dimension_streams_with_a_token_from_servers_started_for_sse() -> None:
    specs = select(discover(SERVERS), ["go"])
    progress = dimension("progress")
    measured = twins(specs, progress, progress.points)
    assert [s.name for s in measured] == ["go-progress1", "go-progress100"]
    for spec, count in zip(measured, (1, 100)):
        assert spec.run_env["DIMENSION_TOOLS"] == "1" and spec.run_env["SSE_REPLIES"] == "1"
        plan = json.loads(spec.workload.driver_json())
        (call,) = plan["calls"]
        # the token names the VU, the driver counts `progress` notifications before the result and times the first
        assert call["progress"] == count and '"_meta":{"progressToken":"mcpbench-{vu}"}' in call["params"]
        assert {"pointer": "/sent", "equals": count} in call["checks"]


def test_a_server_whose_sdk_cannot_stream_is_listed_with_its_reason_not_measured() -> None:
    import dataclasses
    (go,) = select(discover(SERVERS), ["go"])
    why = "its transport answers every request with one JSON body"
    cannot = dataclasses.replace(go, info=go.info.model_copy(update={"unsupported": {"progress": why}}))
    progress = dimension("progress")
    assert all(t.unavailable == f"its SDK cannot stream progress: {why}" for t in twins([cannot], progress, progress.points))
    assert all(t.unavailable is None for t in twins([go], progress, progress.points))
    # another dimension does not ask for streaming
    assert all(t.unavailable is None for t in twins([cannot], dimension("payload"), dimension("payload").points))


def test_a_bad_unsupported_entry_in_a_manifest_is_one_line(tmp_path: Path) -> None:
    source = SERVERS / "go" / "mcpbench.toml"
    server = tmp_path / "go"
    server.mkdir()
    text = source.read_text().replace("[server]\n", '[server]\nunsupported = { streaming = "no" }\n', 1)
    (server / "mcpbench.toml").write_text(text)
    found = discover(tmp_path)
    (error,) = found.errors
    assert not found.servers and "unsupported" in str(error) and "\n" not in str(error)
