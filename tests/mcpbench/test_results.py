"""Results files: written whole, readable by whoever publishes them."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import numpy as np
import pytest

from mcpbench.results.model import ResultsError
from mcpbench.results.write import RunRecord, write_checked, write_json


def test_json_is_written_whole_and_readable_by_a_web_server(tmp_path: Path) -> None:
    target = tmp_path / "server" / "summary.json"
    write_json(target, {"calls_per_s": np.float64(12.5), "path": Path("/x")})
    assert json.loads(target.read_text()) == {"calls_per_s": 12.5, "path": "/x"}
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert [p.name for p in target.parent.iterdir()] == ["summary.json"]  # no temporary file left


def test_a_results_file_is_checked_against_the_model_before_it_is_written(tmp_path: Path) -> None:
    recorded = Path(__file__).resolve().parents[1] / "fixtures" / "results" / "20261123-113219-local"
    summary = json.loads((recorded / "rust" / "session-8vu-r1" / "summary.json").read_text())
    write_checked(tmp_path / "summary.json", summary)
    assert json.loads((tmp_path / "summary.json").read_text()) == summary
    drifted = {**summary, "harness_cpuset": "0"}
    with pytest.raises(ResultsError, match="harness_cpuset"):
        write_checked(tmp_path / "again" / "summary.json", drifted)
    assert not (tmp_path / "again").exists()


def test_run_json_is_checked_on_every_save(tmp_path: Path) -> None:
    run = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "results" / "20261123-113219-local"
                      / "run.json").read_text())
    record = RunRecord(tmp_path, run["run_id"], run["config"], run["environment"])
    record.update_server("rust", status="ok", idle_rss_mb=6.6)
    assert json.loads(record.path.read_text())["servers"]["rust"]["status"] == "ok"
    with pytest.raises(ResultsError, match="servers.rust.status"):
        record.update_server("rust", status="fine")
    with pytest.raises(ResultsError, match="config.rate_steps"):
        RunRecord(tmp_path, run["run_id"], {**run["config"], "rate_steps": None}, run["environment"])


def test_a_measurements_label_and_round_survive_a_dot_in_the_label_and_a_set_aside_suffix() -> None:
    from mcpbench.results.layout import MeasurementDir

    for name, label, round_index in (("session-equal0.7-r1", "session-equal0.7", 1),
                                     ("session-equal0.7-r12.disturbed2", "session-equal0.7", 12),
                                     ("session-50vu-r3.incomplete", "session-50vu", 3),
                                     ("session-50vu", "session-50vu", None)):
        measurement = MeasurementDir(Path("/results/run/go") / name)
        assert (measurement.label, measurement.round) == (label, round_index), name
