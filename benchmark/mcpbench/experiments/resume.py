"""`mcpbench run --resume RUN_DIR`: continue a suite that was interrupted or died, where it stopped.

The run goes on in its own directory with the options it was started with (run.json `config.options`): the
rounds keep their recorded order, a measurement whose summary.json is there is kept and not measured again
(runner.kept), one the stop cut short is set aside as `<dir>.incomplete` and measured again, and the harness
is calibrated again only when the host is not the one that ran it (its fingerprint) or no calibration had
finished. run.json `resumes` records each continuation.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from mcpbench.experiments.options import WATCHING, Values
from mcpbench.results import liveness
from mcpbench.results.layout import INCOMPLETE, RunDir
from mcpbench.results.model import Environment, Resume, document
from mcpbench.results.write import RunRecord, now_iso


class Restorable(Protocol):
    """What a resume restores of a server's state (the runner's ServerState)."""

    failed: bool
    verified: bool
# The fingerprint fields that make another host (or other code): a resume on one calibrates the harness again.
HOST_KEYS = ("hostname", "cpu_model", "cores", "memory_gb", "kernel", "os", "tools", "git")


def recordable(values: Values) -> Values:
    """The option values as run.json keeps them (paths as text), less --resume itself."""
    return {name: str(value) if isinstance(value, Path) else value
            for name, value in values.items() if name != "resume" and name not in WATCHING}


def _flag(option) -> str:
    """How the command line spells the option (its first flag: --rounds, not --runs)."""
    if option.argument:
        return "the server names"
    return option.flags[0].split("/")[0] if option.flags else f"--{option.name.replace('_', '-')}"


def resumed_values(options: tuple, values: Values) -> Values:
    """The option values to continue values["resume"] with: the recorded ones, the servers it measured.
    ValueError (one sentence) when the run cannot be continued or other options were given with --resume."""
    run_dir: Path = values["resume"]
    if not RunDir(run_dir).exists():
        raise ValueError(f"--resume {run_dir}: no {RunDir(run_dir).run_json.name} there")
    given = [_flag(o) for o in options if o.name != "resume" and o.name not in WATCHING
             and values.get(o.name, o.default) not in (o.default, *([[], ()] if o.default is None else []))]
    if given:
        raise ValueError(f"--resume continues the run with the options it was started with: "
                         f"leave out {', '.join(given)}")
    run = RunRecord.reopen(run_dir).run
    if run.status == "complete":
        raise ValueError(f"{run_dir}: the run is complete; nothing to resume")
    if run.status == "running" and liveness.orchestrator_alive(run.orchestrator) is not False:
        pid = run.orchestrator.pid if run.orchestrator else "?"
        raise ValueError(f"{run_dir}: still running (orchestrator pid {pid}, or on another machine); stop it first")
    recorded = run.config.options
    if recorded is None:
        raise ValueError(f"{run_dir}: recorded before --resume existed (no config.options in "
                         f"{RunDir(run_dir).run_json.name})")
    restored: Values = {}
    for option in options:
        value = recorded.get(option.name, option.default)
        if option.type is Path and value is not None:
            value = Path(value)
            if option.name == "servers_dir" and not value.is_dir():
                value = option.default  # the checkout moved: this one's servers
        restored[option.name] = value
    restored["servers"] = list(run.config.servers)  # exactly what it measured, not what is found now
    restored["results_dir"] = run_dir.parent
    restored["resume"] = run_dir
    restored.update({name: values.get(name) for name in WATCHING})
    return restored


def _elapsed_before(record: RunRecord) -> float:
    """The run's measuring time so far: every earlier part, from its start to its last sign of life (the
    stop it recorded, else its newest summary.json; not run.json's last write, which marking it abandoned
    moved). The gaps between parts are not the run's."""
    previous = record.run.resumes[-1] if record.run.resumes else None
    start = dt.datetime.fromisoformat(previous.at if previous else record.run.started_at).timestamp()
    signs = [path.stat().st_mtime for path in record.run_dir.summaries()]
    if record.run.finished_at:
        signs.append(dt.datetime.fromisoformat(record.run.finished_at).timestamp())
    part = max(0.0, max(signs, default=start) - start)
    return round((previous.elapsed_before_s if previous else 0.0) + part, 1)


def _set_aside_incomplete(record: RunRecord) -> list[str]:
    """Measurement directories without a summary (the stop came during them): renamed <dir>.incomplete."""
    moved = []
    for name in record.run.config.servers:
        for measurement in record.run_dir.server(name).measurements(include_set_aside=True):
            if measurement.set_aside or measurement.summary.exists():
                continue
            target = measurement.aside(INCOMPLETE)
            measurement.path.rename(target.path)
            moved.append(f"{name}/{target.name}")
    return moved


def begin(record: RunRecord, host: Environment) -> Resume:
    """Mark the run resumed (run.json `resumes`, status running in this process) and return the resume's
    record, which the runner keeps current (kept, recalibrated). `host`: this machine's fingerprint."""
    environment, here = document(record.run.environment), document(host)
    entry = Resume(at=now_iso(), previous_status=record.run.status, kept=0, set_aside=_set_aside_incomplete(record),
                   host_changed=[key for key in HOST_KEYS if environment.get(key) != here.get(key)],
                   recalibrated=False, elapsed_before_s=_elapsed_before(record))
    record.resume(entry)
    return entry


def describe(entry: Resume) -> str:
    parts = [f"{len(entry.set_aside)} measurement(s) cut short set aside" if entry.set_aside else
             "no measurement was cut short"]
    parts.append(f"the host differs ({', '.join(entry.host_changed)}): calibrating again"
                 if entry.host_changed else "the same host")
    return "; ".join(parts)


def restore(record: RunRecord, states: Mapping[str, Restorable]) -> None:
    """What the runner knew of each server before the stop: failed ones stay out, verified ones are not
    verified again (the rest comes back as their measurements are kept: runner.kept)."""
    for name, state in states.items():
        server = record.run.servers.get(name)
        state.failed = server is not None and server.status in ("failed", "unavailable")
        state.verified = record.run_dir.server(name).verify_json.is_file()


def needs_calibration(record: RunRecord, entry: Resume) -> bool:
    """Calibrate again: another host, or no calibration had finished before the stop."""
    entry.recalibrated = bool(entry.host_changed) or not record.run.calibrations
    record.save()
    return entry.recalibrated
