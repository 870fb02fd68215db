"""`mcpbench upgrade RESULTS…`: a results directory rewritten in the current schema, its figures recomputed
from its raw files by today's analysis (asv's `update`; pyperf computes its stats on load the same way).

Readers already upgrade old files on the fly (model.upgrade_*); this makes the upgrade permanent, so a
published directory, and the recorded test fixtures, say exactly what today's definitions compute from
their samples. What only the suite knew when it ran (a server that died, the infrastructure failing: the
status, phase and reason it gave) and who/when fields (server, round, start-up) are kept as recorded.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from mcpbench import analysis as analysis_package
from mcpbench.analysis import summary as analysis
from mcpbench.analysis.summary import upgrade_summary
from mcpbench.loads.timing import Timing
from mcpbench.results import model
from mcpbench.results.layout import MeasurementDir, RunDir, ServerDir
from mcpbench.results.read import read_json
from mcpbench.results.upgrades import upgrade_context, upgrade_document, upgrade_run
from mcpbench.results.write import write_checked

CALIBRATION_SERVER = "calibrate"  # calibrate.CalibrationTarget.name (not imported: it pulls in the runtimes)


def upgrade_measurement(measurement: MeasurementDir, run: dict) -> bool:
    """One measurement rewritten (context.json and summary.json); False when it has no raw files to
    recompute from (a failed start), then its summary is only upgraded."""
    summary_path = measurement.summary
    recorded, _ = upgrade_summary(read_json(summary_path), run, summary_path)
    context_path = measurement.context
    if not context_path.is_file() or not measurement.samples.is_file():
        write_checked(summary_path, model.document(recorded))
        return False
    context = upgrade_context(read_json(context_path), context_path)
    if recorded.server == CALIBRATION_SERVER:  # schema 2 did not say a context was the calibration's
        context = context.model_copy(update={"calibration": True})
    write_checked(context_path, model.document(context))
    again = analysis.reanalyze(measurement)  # what only the suite recorded kept (analysis.RECORDED_ONLY)
    if recorded.status != "ok" and recorded.phase not in (analysis.LOADGEN_PHASE,):
        # the suite's own verdict (a dead server, dead infrastructure) stands above the cross-checks
        again = analysis.overruled(again, recorded.status, recorded.phase, recorded.reason)
    write_checked(summary_path, model.document(again))
    return True


# What judges an experiment's result file again from its data: the file as its model (model.EXPERIMENT_RESULTS,
# upgraded), the server's directory and the run's request timeout in; the file judged by today's rules out.
ResultJudge = Callable[[BaseModel, ServerDir, float], BaseModel]


def result_judges() -> dict[str, ResultJudge]:
    """Per experiment result file (model.EXPERIMENT_RESULTS), the rule that judges it again from its data: the
    `rejudge_result` of the analysis module whose RESULT_FILE it is (analysis/capacity.py, analysis/soak.py) —
    found here, so an experiment's judgement is its own module and nothing else names it."""
    judges: dict[str, ResultJudge] = {}
    for info in pkgutil.iter_modules(analysis_package.__path__):
        module = importlib.import_module(f"{analysis_package.__name__}.{info.name}")
        if hasattr(module, "RESULT_FILE"):
            judges[module.RESULT_FILE] = module.rejudge_result
    return judges


def upgrade_results(directory: Path) -> dict[str, int]:
    """Every file of one results directory in the current schema; counts of what was rewritten."""
    run_dir = RunDir(directory)
    run_path = run_dir.run_json
    run = upgrade_run(read_json(run_path), run_path)
    run_data = {k: v for k, v in run.items() if k != "schema_read"}
    counts = {"measurements": 0, "summaries_only": 0, "documents": 0}
    for summary_path in run_dir.summaries():
        recomputed = upgrade_measurement(MeasurementDir(summary_path.parent), run)
        counts["measurements" if recomputed else "summaries_only"] += 1
    timeout_s = float(run["config"].get("request_timeout_s") or Timing().request_timeout_s)
    judges = result_judges()
    for server in run_dir.servers():
        for file, path in server.results().items():
            kind = model.EXPERIMENT_RESULTS[file]
            result = model.parsed(kind, upgrade_document(kind, read_json(path), path), path)
            if file in judges:
                result = judges[file](result, server, timeout_s)
            write_checked(path, model.document(result))
            counts["documents"] += 1
    write_checked(run_path, run_data)
    return counts
