"""The results directory (docs/results-format.md): every file written atomically, as soon as known."""

from __future__ import annotations

import datetime as dt
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import BaseModel

from mcpbench.results import liveness, model
from mcpbench.results.layout import RunDir
from mcpbench.results.model import (
    PROCESS_COLUMNS,
    PROCESS_SOCKET_COLUMNS,
    RESOURCE_COLUMNS,
    SCHEMA,
    ProcessSample,
    RunStatus,
    Sample,
)
from mcpbench.results.upgrades import recorded_dimension_plan

# What the suite writes, by file name, in words: an I/O error names the file and what it was to hold.
WRITTEN = {
    model.RUN_FILE: "the run's record", model.SUMMARY_FILE: "a measurement's figures",
    model.CONTEXT_FILE: "a measurement's context", model.SAMPLES_FILE: "a measurement's samples",
    model.RESOURCES_FILE: "a measurement's resource readings", model.PROCESSES_FILE: "the process-tree readings",
    model.SERVER_LOG: "the server's log", model.ERROR_LOG: "the run's traceback",
    model.COUNTS_FILE: "the load generator's counts", model.VERIFY_FILE: "the server's verification",
}


def io_said(exc: OSError, under: Path | None = None) -> str:
    """An I/O error as one sentence naming the path and what was being written ('cannot write
    /r/run.json (the run's record): No space left on device'); `under` when the error names no file."""
    path = Path(exc.filename) if exc.filename else under
    if path is None:
        return f"an I/O error: {exc.strerror or exc}"
    name = path.name.split(".tmp")[0].lstrip(".") if path.name.endswith(".tmp") else path.name
    what = WRITTEN.get(name) or next((v for k, v in WRITTEN.items() if name.startswith(k)), None)
    where = f"{path} ({what})" if what else (f"under {path}" if not exc.filename else str(path))
    return f"cannot write {where}: {exc.strerror or exc}"


def directory_said(path: Path, exc: OSError) -> str:
    """Why a directory cannot be made, naming the part of the path in the way ('/etc/hostname is not a
    directory') or the reason the system gives."""
    for parent in [path, *path.parents]:
        if parent.exists() and not parent.is_dir():
            return f"cannot make the results directory {path}: {parent} is not a directory"
    return f"cannot make the results directory {path}: {exc.strerror or exc}"


@contextmanager
def writing(path: Path) -> Iterator[None]:
    """An OSError inside names `path` when it names no file of its own (pandas, gzip and json say only
    "No space left on device"): io_said can then say which file and what it was to hold."""
    try:
        yield
    except OSError as exc:
        if exc.filename:
            raise
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc


def write_json(path: Path, data: Any) -> None:
    with writing(path):
        _write_json(path, data)


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.fchmod(fd, 0o644)  # mkstemp's 0600 would make published results unreadable to a web server
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, default=_jsonable)
            handle.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)  # a full disk must not keep a half-written copy
        raise


def write_checked(path: Path, data: dict[str, Any]) -> None:
    """A file the results model defines (model.FILES, by its name: summary.json, context.json, verify.json,
    image.json, server.json…), checked against the model, then written: a writer that drifts from the
    format fails here, in its tests, not in the report."""
    model.validated(model.FILES[path.name], data, path)
    write_json(path, data)


def write_record(path: Path, record: BaseModel) -> None:
    """A typed record written as the file its name says (write_checked): the fields its writer set, so an
    optional part it never set (verify.json's conformance, server.json's url) stays out of the file as before,
    and a reader takes the field's default."""
    write_checked(path, record.model_dump(by_alias=True, exclude_unset=True))


def _jsonable(value: Any) -> Any:
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def new_run_id(runtime: str) -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y%m%d-%H%M%S") + f"-{runtime}"


def write_resources(path: Path, samples: list[Sample], start_epoch_s: float) -> None:
    frame = pd.DataFrame([s.__dict__ for s in samples], columns=list(RESOURCE_COLUMNS))
    frame["t_s"] = (frame["t_s"] - start_epoch_s).round(3)
    frame[["cpu_pct", "mem_mb"]] = frame[["cpu_pct", "mem_mb"]].round(2)
    tmp = path.with_suffix(".tmp")
    with writing(path):
        frame.to_csv(tmp, index=False)
        tmp.replace(path)


def write_processes(path: Path, samples: list[ProcessSample], start_epoch_s: float) -> None:
    frame = pd.DataFrame([s.rebased(start_epoch_s).__dict__ for s in samples],
                         columns=[*PROCESS_COLUMNS, *PROCESS_SOCKET_COLUMNS])
    frame["t_s"] = frame["t_s"].round(3)
    tmp = path.with_suffix(".tmp")
    with writing(path):
        frame.to_csv(tmp, index=False)
        tmp.replace(path)


class RunRecord:
    """run.json as the object the code carries (model.Run), written whole on every change, so an interrupted
    suite still describes itself. What an experiment adds to it has a method here: its calibration, its rounds,
    the equal load's rate, `--rounds auto`'s looks, the generators each transport used."""

    def __init__(self, directory: Path, run_id: str, config: model.Config, environment: model.Environment):
        self.run_dir = RunDir(directory)
        self.run: model.Run = model.parsed(model.Run, {
            "schema": SCHEMA, "run_id": run_id, "status": "running", "started_at": now_iso(),
            "finished_at": None, "error": None, "config": config, "environment": environment,
            "calibration": None, "harness_capacity": None, "calibrations": [], "rounds": [], "servers": {},
            "orchestrator": model.document(liveness.this_orchestrator()),
        }, self.run_dir.run_json)
        self.save()

    @classmethod
    def reopen(cls, directory: Path) -> RunRecord:
        """An existing run.json (this schema), to continue or to mark; ValueError in one sentence when it
        cannot be read as one."""
        run_dir = RunDir(directory)
        path = run_dir.run_json
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"{path}: cannot read it ({exc})") from None
        if data.get("schema") != SCHEMA:
            raise ValueError(f"{path}: results format {data.get('schema')}, not {SCHEMA}: it was written by an "
                             "older mcpbench")
        record = cls.__new__(cls)
        # a dimension plan recorded without its section and question reads as the report reads it (upgrades.py)
        record.run_dir, record.run = run_dir, model.parsed(model.Run, recorded_dimension_plan(data), path)
        return record

    @property
    def directory(self) -> Path:
        return self.run_dir.path

    @property
    def path(self) -> Path:
        return self.run_dir.run_json

    def save(self) -> None:
        """The typed run as run.json holds it: every value was checked as it was set (model.Closed)."""
        write_json(self.path, model.document(self.run))

    # -- the run's life ----------------------------------------------------------------------------------
    def abandon(self) -> None:
        """Status `abandoned`: its orchestrator is gone (liveness.abandoned_runs)."""
        self.run.status = "abandoned"
        self.run.abandoned = model.Abandoned(detected_at=now_iso(),
                                             last_measurement=liveness.last_measurement(self.run_dir, self.run))
        self.save()

    def resume(self, resume: model.Resume) -> None:
        """Running again, in this process (`mcpbench run --resume`), the resume recorded."""
        self.run.resumes = [*(self.run.resumes or []), resume]
        self.run.status, self.run.finished_at, self.run.error, self.run.abandoned = "running", None, None, None
        self.run.orchestrator = liveness.this_orchestrator()
        self.save()

    def finish(self, status: RunStatus, error: str | None = None) -> None:
        self.run.status = status
        self.run.error = error
        self.run.finished_at = now_iso()
        try:
            self.save()
        except OSError:
            self.save_in_place()

    def save_in_place(self) -> None:
        """run.json rewritten over its own bytes, compact: on a full disk, where the atomic write (a new file)
        cannot get a block, the indented file's blocks still hold the compact one. OSError when even that fails
        (the next start's abandoned check is then what says the run is over)."""
        text = json.dumps(model.document(self.run), separators=(",", ":"), default=_jsonable)
        with open(self.path, "r+", encoding="utf-8") as handle:
            if len(text) > os.fstat(handle.fileno()).st_size:
                raise OSError(28, "No space left on device", str(self.path))
            handle.write(text)
            handle.truncate()

    # -- servers ------------------------------------------------------------------------------------------
    def server(self, name: str) -> model.ServerStatus:
        if name not in self.run.servers:
            self.run.servers[name] = model.ServerStatus(status="pending", phase=None, reason=None, measurements=[])
        return self.run.servers[name]

    def update_server(self, name: str, **fields: Any) -> None:
        model.assign(self.server(name), f"{self.path}: servers.{name}", **fields)
        self.save()

    def list_measurement(self, server: str, name: str, replaces: str | None = None) -> None:
        """A measurement's directory name in the server's list (in place of `replaces`: set aside, renamed)."""
        listed = self.server(server).measurements
        if replaces is not None and replaces in listed:
            listed[listed.index(replaces)] = name
        elif name not in listed:
            listed.append(name)
        self.save()

    # -- what experiments add -----------------------------------------------------------------------------
    def set_environment(self, **fields: Any) -> None:
        """Facts the runtime adds once it has started (cgroup, its description, its own section), validated into
        the environment's model (a plain dict set on a typed field would be saved unchecked)."""
        environment = self.run.environment
        self.run.environment = type(environment).model_validate(
            {**environment.model_dump(mode="json"), **fields})
        self.save()

    def set_generators(self, by_transport: dict[str, model.LocalGenerator | model.SwarmGenerator]) -> None:
        """The generator each transport used, as it describes itself."""
        assert self.run.config.load_generator is not None
        self.run.config.load_generator.by_transport = by_transport
        self.save()

    def add_calibration(self, reason: str, infra_start: int, limits: dict[str, model.Calibration],
                        capacities: dict[str, model.HarnessCapacity]) -> None:
        """A calibration of the harness: the limits now in force, and its entry in the run's list."""
        self.run.calibration = dict(limits) or None
        self.run.harness_capacity = dict(capacities) or None
        self.run.calibrations = [*(self.run.calibrations or []), model.CalibrationRecord(
            reason=reason, infra_start=infra_start, calibration=self.run.calibration,
            harness_capacity=self.run.harness_capacity)]
        self.save()

    def set_rounds(self, rounds: list[list[str]]) -> None:
        self.run.rounds = [list(r) for r in rounds]
        self.save()

    def set_equal_load(self, by_mode: dict[str, model.EqualRate]) -> None:
        self.run.equal_load = dict(by_mode) or None
        self.save()

    def set_rounds_auto(self, record: model.RoundsAuto) -> None:
        self.run.rounds_auto = record
        self.save()
