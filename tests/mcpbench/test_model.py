"""mcpbench.model, the one definition of the results format: every recorded run validates, old schemas are
upgraded, unknown ones refused, writers checked against it, and docs/results-format.md generated from it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from mcpbench.catalog import build
from mcpbench.measure import calibration as calibrate
from mcpbench.results import model
from mcpbench.experiments.config import RunConfig
from mcpbench.loads.timing import Timing
from mcpbench.host.profile import resource_profile
from mcpbench.workload.checks import Check
from mcpbench.workload.verify import Verify
from mcpbench.analysis.summary import upgrade_summary
from mcpbench.results.doc import DOC_BEGIN, DOC_END, DOCUMENTED, _models_of, render_doc
from mcpbench.results.upgrades import upgrade_context, upgrade_run

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "results"
SCHEMA1 = FIXTURES / "20261123-114227-local"
RUST_R1 = FIXTURES / "20261123-113219-local" / "rust" / "session-8vu-r1"
DOC = Path(__file__).resolve().parents[2] / "docs" / "results-format.md"


def _json(path: Path) -> dict:
    return json.loads(path.read_text())


def test_every_recorded_file_validates():
    """Six real runs (one of schema 1): each JSON file the model defines validates, run.json and summary.json
    after their upgrade (schema 1's k6-summary.json is no part of the format any more)."""
    checked = 0
    for run_path in sorted(FIXTURES.glob("*/run.json")):
        run = upgrade_run(_json(run_path), run_path)
        for path in sorted(run_path.parent.rglob("*.json")):
            if path.name == "summary.json":
                upgrade_summary(_json(path), run, path)
            elif path.name in model.FILES and path.name != "run.json":
                model.validated(model.FILES[path.name], _json(path), path)
            checked += 1
    assert checked > 150


@pytest.mark.parametrize("name", ["run.json", "summary.json"])
def test_a_future_schema_is_refused_in_one_line(name):
    run = _json(FIXTURES / "20261123-113219-local" / "run.json")
    future = model.SCHEMA + 1
    data = dict(run if name == "run.json" else _json(RUST_R1 / "summary.json"), schema=future)
    with pytest.raises(model.ResultsError) as caught:
        if name == "run.json":
            upgrade_run(data, Path(name))
        else:
            upgrade_summary(data, upgrade_run(run, Path("run.json")), Path(name))
    message = str(caught.value)
    assert message == f"{name}: unsupported schema {future} (this reader reads schemas 1, 2, 3, 4)"


SCHEMA2_OPEN = Path(__file__).resolve().parents[1] / "fixtures" / "schema2" / "20261123-114126-local"


def test_schema2_is_upgraded_and_its_open_loads_lose_the_closed_models_ceiling():
    # The recorded OPEN run as schema 2 wrote it (tests/fixtures/schema2: its JSON files, before
    # `mcpbench upgrade` rewrote the run under results/): rust closed at 4 VUs against a 199 calls/s closed
    # calibration, then open at 50/90/150 % of its rate. Schema 2 flagged the 150 % open run bound:ceiling
    # (160 % of a limit its load never met); schema 3 judges it against no limit rather than the wrong one.
    run = upgrade_run(_json(SCHEMA2_OPEN / "run.json"), SCHEMA2_OPEN / "run.json")
    assert run["schema_read"] == 2 and run["harness_capacity"] is None
    assert run["calibration"]["session"]["loadgen_cpu_pct"] is not None
    upgraded = {path.parent.name: upgrade_summary(_json(path), run, path)
                for path in sorted(SCHEMA2_OPEN.glob("rust/*/summary.json"))}
    old = {path.parent.name: _json(path) for path in sorted(SCHEMA2_OPEN.glob("rust/*/summary.json"))}
    assert "bound:ceiling" in old["session-open1.5-r1"]["flags"]
    for name, (summary, read_as) in upgraded.items():
        assert read_as == 2
        assert "bound:ceiling" not in summary.flags and "k6" not in summary.resources
        assert "loadgen" in summary.resources
        # its context.json, read as the analysis reads it, is judged against the same limit
        context = upgrade_context(_json(SCHEMA2_OPEN / "rust" / name / "context.json"), Path(name))
        assert context.kind == summary.kind and context.limit_kind == summary.limit.kind
        if summary.kind == "open":
            assert summary.limit.kind is None and "limit-unknown" in summary.flags
            assert summary.publishable is False
        else:
            assert summary.limit.kind == "load-model"
            assert ("bound:load-model" in summary.flags) == ("bound:ceiling" in old[name]["flags"])


def test_schema1_is_upgraded_to_the_current_model():
    run = upgrade_run(_json(SCHEMA1 / "run.json"), SCHEMA1 / "run.json")
    assert run["schema"] == model.SCHEMA and run["schema_read"] == 1
    assert run["calibration"] is None and run["rounds"] is None and run["config"]["calibrate"] is False
    for path in sorted(SCHEMA1.glob("*/*/summary.json")):
        raw = _json(path)
        summary, read_as = upgrade_summary(raw, run, path)
        assert read_as == 1 and summary.publishable is None
        assert summary.unpublishable_reasons == [model.NOT_ASSESSED]
        assert summary.throughput.http_rps == raw["throughput"]["v2_rps"]
        assert summary.throughput.v2_rps is None and summary.errors.failed_tool_calls is None
        assert summary.host is None and summary.checks is None


def test_a_writer_that_drifts_from_the_model_fails(tmp_path):
    summary = _json(RUST_R1 / "summary.json")
    model.validated(model.Summary, summary, "summary.json")
    renamed = dict(summary, rate_fractions=summary["rate_fraction"])
    del renamed["rate_fraction"]
    with pytest.raises(model.ResultsError, match="rate_fractions"):      # a key the model does not know
        model.validated(model.Summary, renamed, "summary.json")
    missing = {k: v for k, v in summary.items() if k != "flags"}
    with pytest.raises(model.ResultsError, match="summary.json: flags: Field required"):
        model.validated(model.Summary, missing, "summary.json")
    nested = json.loads(json.dumps(summary))
    nested["throughput"]["tool_calls_per_s"] = "fast"
    with pytest.raises(model.ResultsError, match="throughput.tool_calls_per_s"):
        model.validated(model.Summary, nested, "summary.json")


def test_the_orchestrators_writers_produce_the_model(tmp_path):
    """What config, verify, calibrate, analysis and build write is what the model says."""
    config = RunConfig.from_options({}, [], Timing())
    config.profile = model.Profile.model_validate(resource_profile(cores=2), from_attributes=True)  # pinned
    model.validated(model.Config, model.document(config), "run.json config")
    verdict = Verify.of([Check(name="initialize", status="pass", reason="ok"),
                         Check(name="tools/list", status="warn", reason="slow")])
    assert verdict.status == "warn"
    model.validated(model.Verify, verdict.model_dump(exclude_unset=True), "verify.json")
    summary = model.parsed(model.Summary, _json(RUST_R1 / "summary.json"), "summary.json")
    limit = calibrate.load_model_limit(summary, 0.05)
    model.validated(model.Calibration, model.document(limit), "run.json calibration")
    # The analysis reads context.json as the model (no copy of its own to keep in step): a recorded one reads and
    # writes back key for key, value for value; a field added since it was written is null (not recorded).
    recorded = _json(RUST_R1 / "context.json")
    context = upgrade_context(recorded, RUST_R1 / "context.json")
    written = model.document(context)
    model.validated(model.Context, written, "context.json")
    assert {key: written[key] for key in recorded} == recorded
    assert {key: written[key] for key in set(written) - set(recorded)} == {"iteration": None, "calls": None, "stages": None,
                                                                            "spike_s": None}
    outcome = build.run_commands(("true", "true"), tmp_path, dict(os.environ), 10, tmp_path / "build.log")
    assert outcome.build_record().model_dump() == {"status": "ok", "seconds": round(outcome.seconds, 2),
                                                   "reason": None, "log": "build.log", "command": "true && true"}
    with pytest.raises(ValueError):
        build.BuildOutcome("done", 1.0, None, None).build_record()   # not a build status


def test_the_doc_tables_are_the_model():
    """docs/results-format.md's field tables are generated from the model (python -m mcpbench.model): every
    field of every model is documented and the doc lists no field the model lacks."""
    text = DOC.read_text()
    assert DOC_BEGIN in text and DOC_END in text
    assert render_doc(text) == text, "stale field tables: run `.venv/bin/python -m mcpbench.results.doc`"
    documented = {line.split("`")[1] for line in text.split(DOC_BEGIN)[1].splitlines()
                  if line.startswith("| `")}
    named = {info.alias or name for part in DOCUMENTED.values() for inner in _models_of(part, [])
             for name, info in inner.model_fields.items()}
    assert documented == named


def test_the_doc_lists_the_csv_columns():
    text = DOC.read_text()
    samples = text.split("## samples.csv.gz")[1].split("##")[0]
    assert [line.split("`")[1] for line in samples.splitlines() if line.startswith("| `")] == [
        *model.SAMPLE_COLUMNS, model.FIRST_MS]  # the optional column last
    resources = text.split("## resources.csv")[1].split("##")[0]
    assert ",".join(model.RESOURCE_COLUMNS) in resources
