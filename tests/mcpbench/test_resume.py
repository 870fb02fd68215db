"""A run whose orchestrator died is found and marked abandoned; what `--resume` accepts and refuses.
(The whole continuation, with a real SIGKILL, is tests/e2e/test_resume_e2e.py.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mcpbench.catalog.manifest import discover
from mcpbench.experiments import experiment_class, resume
from mcpbench.host.fingerprint import fingerprint
from mcpbench.host.paths import SERVERS_DIR
from mcpbench.results import liveness
from mcpbench.results.model import RUN_FILE, SUMMARY_FILE, CgroupSupport
from mcpbench.results.write import RunRecord

RUN = experiment_class("run")


def defaults(**given) -> dict:
    return {**{o.name: o.default for o in RUN.options}, **given}


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def a_run(tmp_path: Path) -> RunRecord:
    """run.json as `mcpbench run go --quick` writes it before its first measurement."""
    values = defaults(servers=["go"], quick=True)
    experiment = RUN(values, [discover(SERVERS_DIR).by_name()["go"]])
    return RunRecord(tmp_path / "20261126-000000-local", "20261126-000000-local", experiment.config,
                     fingerprint(CgroupSupport(version=None, applied=False, note="test")))


def test_the_running_orchestrator_is_alive_and_a_dead_or_reused_pid_is_not() -> None:
    me = liveness.this_orchestrator()
    assert liveness.orchestrator_alive(me) is True
    assert liveness.orchestrator_alive(me.model_copy(update={"pid": dead_pid()})) is False
    assert liveness.orchestrator_alive(me.model_copy(update={"started_epoch": me.started_epoch - 100})) is False
    assert liveness.orchestrator_alive(me.model_copy(update={"boot_id": "another-boot"})) is False  # rebooted since
    assert liveness.orchestrator_alive(me.model_copy(update={"hostname": "elsewhere"})) is None  # not from here
    assert liveness.orchestrator_alive(None) is None  # recorded before it was recorded


def test_a_running_run_whose_orchestrator_died_is_found_and_marked_abandoned_at_its_last_measurement(
        tmp_path: Path) -> None:
    record = a_run(tmp_path)
    assert liveness.abandoned_runs(tmp_path) == []  # this process is its orchestrator
    for name in ("session-5vu-r1", "session-5vu-r2"):
        (record.directory / "go" / name).mkdir(parents=True)
        (record.directory / "go" / name / SUMMARY_FILE).write_text("{}")
        record.server("go").measurements.append(name)
    record.run.orchestrator.pid = dead_pid()
    record.save()
    assert liveness.abandoned_runs(tmp_path) == [record.directory]
    RunRecord.reopen(record.directory).abandon()
    data = json.loads((record.directory / RUN_FILE).read_text())
    assert data["status"] == "abandoned"
    assert data["abandoned"]["last_measurement"] == "go/session-5vu-r2"
    assert liveness.abandoned_runs(tmp_path) == []  # marked once


def test_resume_takes_the_recorded_options_and_exactly_the_recorded_servers(tmp_path: Path) -> None:
    record = a_run(tmp_path)
    record.finish("interrupted")
    values = resume.resumed_values(RUN.options, defaults(resume=record.directory))
    assert values["servers"] == ["go"] and values["resume"] == record.directory
    assert values["results_dir"] == tmp_path and isinstance(values["servers_dir"], Path)


@pytest.mark.parametrize("status, given, message", [
    ("complete", {}, "the run is complete; nothing to resume"),
    ("interrupted", {"runs": "3"}, "leave out --rounds"),
    ("running", {}, "still running"),  # this process is its orchestrator
])
def test_resume_refuses_in_one_sentence(tmp_path: Path, status: str, given: dict, message: str) -> None:
    record = a_run(tmp_path)
    record.run.status = status
    record.save()
    with pytest.raises(ValueError, match=message):
        resume.resumed_values(RUN.options, defaults(resume=record.directory, **given))


def test_resume_refuses_a_directory_that_is_not_a_run(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no run.json there"):
        resume.resumed_values(RUN.options, defaults(resume=tmp_path))


def test_a_measurement_the_stop_cut_short_is_set_aside_and_the_elapsed_time_carried_over(tmp_path: Path) -> None:
    record = a_run(tmp_path)
    done, cut = record.directory / "go" / "session-5vu-r1", record.directory / "go" / "session-5vu-r2"
    done.mkdir(parents=True)
    (done / SUMMARY_FILE).write_text("{}")
    cut.mkdir()
    (cut / "samples.log").write_text("S,0.1")
    record.finish("interrupted")
    entry = resume.begin(RunRecord.reopen(record.directory), fingerprint(CgroupSupport(version=None, applied=False, note="test")))
    assert entry.previous_status == "interrupted" and entry.set_aside == ["go/session-5vu-r2.incomplete"]
    assert done.is_dir() and not cut.exists() and (cut.parent / "session-5vu-r2.incomplete" / "samples.log").exists()
    assert entry.host_changed == [] and entry.elapsed_before_s >= 0
    data = json.loads((record.directory / RUN_FILE).read_text())
    assert data["status"] == "running" and data["resumes"] == [entry.model_dump()]
    assert data["orchestrator"]["pid"] == liveness.this_orchestrator().pid


def test_the_time_before_a_resume_ends_at_the_last_finished_measurement_not_at_the_abandonment(
        tmp_path: Path) -> None:
    import datetime as dt
    import os

    record = a_run(tmp_path)
    done = record.directory / "go" / "session-5vu-r1"
    done.mkdir(parents=True)
    (done / SUMMARY_FILE).write_text("{}")
    started = dt.datetime.fromisoformat(record.run.started_at).timestamp()
    os.utime(done / SUMMARY_FILE, (started + 30, started + 30))
    record.abandon()  # found much later: run.json written now
    entry = resume.begin(RunRecord.reopen(record.directory), fingerprint(CgroupSupport(version=None, applied=False, note="test")))
    assert entry.previous_status == "abandoned" and entry.elapsed_before_s == 30.0
