"""The results directory (docs/results-format.md): every file written atomically, as soon as known."""

from __future__ import annotations

import datetime as dt
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

from mcpbench.results import liveness, model
from mcpbench.results.layout import RunDir
from mcpbench.results.model import PROCESS_COLUMNS, ProcessSample, RESOURCE_COLUMNS, SCHEMA, Sample


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.fchmod(fd, 0o644)  # mkstemp's 0600 would make published results unreadable to a web server
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2, default=_jsonable)
        handle.write("\n")
    os.replace(tmp, path)


def write_checked(path: Path, data: dict[str, Any]) -> None:
    """A file the results model defines (model.FILES, by its name: summary.json, context.json, verify.json,
    image.json, server.json…), checked against the model, then written: a writer that drifts from the
    format fails here, in its tests, not in the report."""
    model.validated(model.FILES[path.name], data, path)
    write_json(path, data)


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
    frame.to_csv(tmp, index=False)
    tmp.replace(path)


def write_processes(path: Path, samples: list[ProcessSample], start_epoch_s: float) -> None:
    frame = pd.DataFrame([s.rebased(start_epoch_s).__dict__ for s in samples], columns=list(PROCESS_COLUMNS))
    frame["t_s"] = frame["t_s"].round(3)
    tmp = path.with_suffix(".tmp")
    frame.to_csv(tmp, index=False)
    tmp.replace(path)


class RunRecord:
    """run.json, kept current as servers finish, so an interrupted suite still describes itself."""

    def __init__(self, directory: Path, run_id: str, config: dict[str, Any], environment: dict[str, Any]):
        self.run_dir = RunDir(directory)
        self.data: dict[str, Any] = {
            "schema": SCHEMA, "run_id": run_id, "status": "running", "started_at": now_iso(),
            "finished_at": None, "error": None, "config": config, "environment": environment,
            "calibration": None, "harness_capacity": None, "calibrations": [], "rounds": [], "servers": {},
            "orchestrator": liveness.this_orchestrator(),
        }
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
        model.validated(model.Run, data, path)
        record = cls.__new__(cls)
        record.run_dir, record.data = run_dir, data
        return record

    def abandon(self) -> None:
        """Status `abandoned`: its orchestrator is gone (liveness.abandoned_runs)."""
        self.data["status"] = "abandoned"
        self.data["abandoned"] = {"detected_at": now_iso(),
                                  "last_measurement": liveness.last_measurement(self.run_dir, self.data)}
        self.save()

    def resume(self, resume: dict[str, Any]) -> None:
        """Running again, in this process (`mcpbench run --resume`), the resume recorded."""
        self.data.setdefault("resumes", None)
        self.data["resumes"] = [*(self.data["resumes"] or []), resume]
        self.data.update(status="running", finished_at=None, error=None, abandoned=None,
                         orchestrator=liveness.this_orchestrator())
        self.save()

    @property
    def directory(self) -> Path:
        return self.run_dir.path

    @property
    def path(self) -> Path:
        return self.run_dir.run_json

    def server(self, name: str) -> dict[str, Any]:
        return self.data["servers"].setdefault(
            name, {"status": "pending", "phase": None, "reason": None, "measurements": [],
                   "startup_s": None, "idle_mem_mb": None})

    def update_server(self, name: str, **fields: Any) -> None:
        self.server(name).update(fields)
        self.save()

    def finish(self, status: str, error: str | None = None) -> None:
        self.data["status"] = status
        self.data["error"] = error
        self.data["finished_at"] = now_iso()
        self.save()

    def save(self) -> None:
        write_checked(self.path, self.data)
