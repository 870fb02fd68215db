"""`mcpbench run --resume RUN_DIR`: continue a suite that was interrupted or died, where it stopped.

The run goes on in its own directory with the options it was started with (run.json `config.options`): the
rounds keep their recorded order, a measurement whose summary.json is there is kept and not measured again
(driver.kept), one the stop cut short is set aside as `<dir>.incomplete` and measured again, and the harness
is calibrated again only when the host is not the one that ran it (its fingerprint) or no calibration had
finished. run.json `resumes` records each continuation.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from mcpbench.results import liveness
from mcpbench.results.model import RUN_FILE, SUMMARY_FILE, VERIFY_FILE
from mcpbench.results.write import RunRecord, now_iso

# The fingerprint fields that make another host (or other code): a resume on one calibrates the harness again.
HOST_KEYS = ("hostname", "cpu_model", "cores", "memory_gb", "kernel", "os", "tools", "git")
INCOMPLETE = ".incomplete"


def recordable(values: dict[str, Any]) -> dict[str, Any]:
    """The option values as run.json keeps them (paths as text), less --resume itself."""
    return {name: str(value) if isinstance(value, Path) else value
            for name, value in values.items() if name != "resume"}


def _flag(option) -> str:
    """How the command line spells the option (its first flag: --rounds, not --runs)."""
    if option.argument:
        return "the server names"
    return option.flags[0].split("/")[0] if option.flags else f"--{option.name.replace('_', '-')}"


def resumed_values(options: tuple, values: dict[str, Any]) -> dict[str, Any]:
    """The option values to continue values["resume"] with: the recorded ones, the servers it measured.
    ValueError (one sentence) when the run cannot be continued or other options were given with --resume."""
    run_dir: Path = values["resume"]
    if not (run_dir / RUN_FILE).is_file():
        raise ValueError(f"--resume {run_dir}: no {RUN_FILE} there")
    given = [_flag(o) for o in options if o.name != "resume"
             and values.get(o.name, o.default) not in (o.default, *([[], ()] if o.default is None else []))]
    if given:
        raise ValueError(f"--resume continues the run with the options it was started with: leave out {', '.join(given)}")
    data = RunRecord.reopen(run_dir).data
    status = data["status"]
    if status == "complete":
        raise ValueError(f"{run_dir}: the run is complete; nothing to resume")
    if status == "running" and liveness.orchestrator_alive(data.get("orchestrator")) is not False:
        pid = (data.get("orchestrator") or {}).get("pid", "?")
        raise ValueError(f"{run_dir}: still running (orchestrator pid {pid}, or on another machine); stop it first")
    recorded = data["config"].get("options")
    if recorded is None:
        raise ValueError(f"{run_dir}: recorded before --resume existed (no config.options in {RUN_FILE})")
    restored: dict[str, Any] = {}
    for option in options:
        value = recorded.get(option.name, option.default)
        if option.type is Path and value is not None:
            value = Path(value)
            if option.name == "servers_dir" and not value.is_dir():
                value = option.default  # the checkout moved: this one's servers
        restored[option.name] = value
    restored["servers"] = list(data["config"]["servers"])  # exactly what it measured, not what is found now
    restored["results_dir"] = run_dir.parent
    restored["resume"] = run_dir
    return restored


def _elapsed_before(record: RunRecord) -> float:
    """The run's measuring time so far: every earlier part, from its start to its last sign of life (the
    stop it recorded, else its newest summary.json; not run.json's last write, which marking it abandoned
    moved). The gaps between parts are not the run's."""
    previous = (record.data.get("resumes") or [None])[-1]
    start = dt.datetime.fromisoformat(previous["at"] if previous else record.data["started_at"]).timestamp()
    signs = [path.stat().st_mtime for path in record.directory.glob(f"*/*/{SUMMARY_FILE}")]
    if record.data.get("finished_at"):
        signs.append(dt.datetime.fromisoformat(record.data["finished_at"]).timestamp())
    part = max(0.0, max(signs, default=start) - start)
    return round((previous["elapsed_before_s"] if previous else 0.0) + part, 1)


def _set_aside_incomplete(record: RunRecord) -> list[str]:
    """Measurement directories without a summary.json (the stop came during them): renamed <dir>.incomplete."""
    moved = []
    for name in record.data["config"]["servers"]:
        server_dir = record.directory / name
        if not server_dir.is_dir():
            continue
        for directory in sorted(p for p in server_dir.iterdir() if p.is_dir()):
            if ".disturbed" in directory.name or INCOMPLETE in directory.name or (directory / SUMMARY_FILE).exists():
                continue
            target, n = directory.with_name(directory.name + INCOMPLETE), 1
            while target.exists():
                n += 1
                target = directory.with_name(f"{directory.name}{INCOMPLETE}{n}")
            directory.rename(target)
            moved.append(f"{name}/{target.name}")
    return moved


def begin(record: RunRecord, host: dict[str, Any]) -> dict[str, Any]:
    """Mark the run resumed (run.json `resumes`, status running in this process) and return the resume's
    record, which the driver keeps current (kept, recalibrated)."""
    environment = record.data["environment"]
    entry = {"at": now_iso(), "previous_status": record.data["status"], "kept": 0,
             "set_aside": _set_aside_incomplete(record),
             "host_changed": [key for key in HOST_KEYS if environment.get(key) != host.get(key)],
             "recalibrated": False, "elapsed_before_s": _elapsed_before(record)}
    record.resume(entry)
    return entry


def describe(entry: dict[str, Any]) -> str:
    parts = [f"{len(entry['set_aside'])} measurement(s) cut short set aside" if entry["set_aside"] else
             "no measurement was cut short"]
    parts.append(f"the host differs ({', '.join(entry['host_changed'])}): calibrating again"
                 if entry["host_changed"] else "the same host")
    return "; ".join(parts)


def restore(record: RunRecord, states: dict[str, Any]) -> None:
    """What the driver knew of each server before the stop: failed ones stay out, verified ones are not
    verified again (the rest comes back as their measurements are kept: driver.kept)."""
    for name, state in states.items():
        server = record.data["servers"].get(name) or {}
        state.failed = server.get("status") in ("failed", "unavailable")
        state.verified = (record.directory / name / VERIFY_FILE).is_file()


def needs_calibration(record: RunRecord, entry: dict[str, Any]) -> bool:
    """Calibrate again: another host, or no calibration had finished before the stop."""
    entry["recalibrated"] = bool(entry["host_changed"]) or not record.data.get("calibrations")
    record.save()
    return entry["recalibrated"]
