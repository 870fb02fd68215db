"""mcpbench_report.load: finding, parsing and validating results directories."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from mcpbench_report import load
from mcpbench_report.load import LoadKey, ResultsError

from mcpbench.analysis import summary as analysis
from mcpbench.results import model

from report_helpers import FIXTURES, OPEN, ROUNDS, SCHEMA1, SWEEP, write_results
from mcpbench.results.read import http_durations, read_samples
from mcpbench.loads import in_window


def test_expand_parent_directory():
    found = load.expand([FIXTURES])
    assert [p.name for p in found] == sorted(p.name for p in FIXTURES.iterdir() if (p / "run.json").is_file())
    assert load.expand([ROUNDS, ROUNDS]) == [ROUNDS.resolve()]


def test_expand_errors(tmp_path):
    with pytest.raises(ResultsError, match="no such directory"):
        load.expand([tmp_path / "missing"])
    (tmp_path / "file").write_text("x")
    with pytest.raises(ResultsError, match="not a directory"):
        load.expand([tmp_path / "file"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(ResultsError, match="not a results directory"):
        load.expand([tmp_path / "empty"])


def test_load_recorded_rounds():
    d = load.load_results_dir(ROUNDS)
    assert d.run_id == "20261123-113219-local" and d.status == "complete"
    assert set(d.servers) == {"rust", "go", "python", "nodejs", "broken", "exotic"}
    assert (d.servers["broken"].status, d.servers["broken"].phase) == ("failed", "build")
    assert "fails on purpose" in d.servers["broken"].reason
    assert d.servers["exotic"].status == "unavailable" and "no-such-toolchain-mcpbench" in d.servers["exotic"].reason
    assert d.servers["rust"].manifest.sdk == "rmcp"
    assert d.servers["python"].verify.status == "pass"
    assert len(d.measurements) == 12 and all(m.ok for m in d.measurements)
    m = next(m for m in d.measurements if m.server == "rust" and m.run == 2)
    assert m.key == LoadKey("session", "closed", 8.0) and m.window == (3.0, 7.0)
    assert {f.name for f in m.files()} >= {"summary.json", "samples.csv.gz", "resources.csv", "k6.log", "context.json"}


def test_load_keys_open_and_sweep():
    d = load.load_results_dir(OPEN)
    assert sorted((m.key.kind_name, m.key.load) for m in d.measurements) == [
        ("closed", 4.0), ("open", 0.5), ("open", 0.9), ("open", 1.5)]
    assert LoadKey("session", "open", 0.5, "fraction").label == "session · 50 % of round-1 max"
    sweep = load.load_results_dir(SWEEP)
    assert sorted({m.key.load for m in sweep.measurements}) == [1.0, 4.0, 16.0]
    assert not sweep.failed_measurements


def test_samples_columns_and_types():
    df = read_samples(ROUNDS / "rust" / "session-8vu-r1" / "samples.csv.gz")
    assert list(df.columns) == [*model.SAMPLE_COLUMNS, model.FIRST_MS]  # a file whose calls streamed none: empty
    assert df[model.FIRST_MS].isna().all()
    assert df["ok"].dtype.kind == "i" and df["call_ms"].dtype.kind == "f"
    assert set(df["tool"]) == {"search_products", "get_user_cart", "checkout", "tools/list"}


def test_in_window_and_http_durations():
    df = pd.DataFrame({"t_s": [2.9, 3.0, 10.99, 11.0], "http_ms": ["1;2", "3;4;5", "6", ""]})
    win = in_window(df, (3.0, 11.0))
    assert win["t_s"].tolist() == [3.0, 10.99]
    assert http_durations(win).tolist() == [3.0, 4.0, 5.0, 6.0]


def test_schema_is_checked(tmp_path):
    """Schemas 1 and 2 are read (upgraded); a schema newer than this code's is refused."""
    path = write_results(tmp_path, {"a": [[(12.0, "checkout", 1, 1.0)]]})
    assert load.load_results_dir(path).schema_read == 1
    two = write_results(tmp_path / "two", {"a": [[(12.0, "checkout", 1, 1.0)]]}, schema=2)
    d = load.load_results_dir(two)
    assert d.schema_read == 2 and d.measurements[0].summary.publishable is True
    run = json.loads((path / "run.json").read_text())
    run["schema"] = model.SCHEMA + 1
    (path / "run.json").write_text(json.dumps(run))
    with pytest.raises(ResultsError, match=f"unsupported schema {model.SCHEMA + 1}"):
        load.load_results_dir(path)


def test_open_model_keyed_by_rate_fraction(tmp_path):
    path = write_results(tmp_path, {"a": [[(12.0, "checkout", 1, 1.0)]]}, schema=2,
                         summaries={"a": [{"kind": "open", "rate": 123.4, "rate_fraction": 0.5}]})
    key = load.load_results_dir(path).measurements[0].key
    assert key == LoadKey("session", "open", 0.5, "fraction")
    assert key.label == "session · 50 % of round-1 max" and key.slug == "session-50pct"


def test_broken_json_is_reported(tmp_path):
    path = write_results(tmp_path, {"a": [[(12.0, "checkout", 1, 1.0)]]})
    (path / "a" / "session-10vu-r1" / "summary.json").write_text("{")
    with pytest.raises(ResultsError, match="not valid JSON"):
        load.load_results_dir(path)


def test_recorded_fixtures_are_what_the_analysis_computes(reanalysed):
    """Every recorded schema-2 measurement (the calibrations too) re-analysed from its raw files alone gives
    its summary.json: the report is tested on figures the orchestrator really computes, from real samples."""
    measurements = [p.parent for p in sorted(FIXTURES.glob("*/*/*/context.json"))]
    schema2 = [p.parent for p in FIXTURES.glob("*/run.json") if p.parent != SCHEMA1]
    assert len(measurements) == sum(len(list(r.glob("*/*/summary.json"))) for r in schema2) > 40
    for m in measurements:
        assert analysis.reanalysis_differences(m, reanalysed(m)) == [], m
    # (6.5 MB since the equal-load recording, 0.5 MB, joined them; 7.2 MB with the what-if one, 0.7 MB; 8.4 MB
    # with the twin run's part, 1.2 MB; 9.2 MB with the tools-list dimension's part, 0.8 MB; 9.1 MB once
    # that part was 0.6 MB, with the tools-list run whose load followed go's pages, 0.6 MB)
    assert sum(p.stat().st_size for p in FIXTURES.rglob("*") if p.is_file()) < 9_200_000


def test_the_orchestrators_own_directories_are_not_servers(tmp_path):
    path = write_results(tmp_path, {"srv": [[(5.0, "checkout", 1, 1.0)]]})
    # mcpbench run writes the harness calibration as a measurement directory under _calibration/
    calibration = path / "_calibration" / "session-50vu"
    calibration.mkdir(parents=True)
    (calibration / "summary.json").write_text(
        (path / "srv" / "session-10vu-r1" / "summary.json").read_text().replace('"srv"', '"calibrate"'))
    results = load.load_results_dir(path)
    assert set(results.servers) == {"srv"}
    assert {m.server for m in load.load_results_dir(ROUNDS).measurements} == {"rust", "go", "python", "nodejs"}
    assert {m.server for m in results.measurements} == {"srv"}
