"""Find results directories and read them (docs/results-format.md) into plain objects and pandas frames.

Nothing here measures, and nothing here defines the format: every file is validated and upgraded to the
current schema through mcpbench.model (run.json and summary.json keep the schema they were written with in
`schema_read`). Samples and resource series are read on demand (they are the large files).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TypeVar

import pandas as pd
from pydantic import BaseModel

from mcpbench import loads as load_kinds
from mcpbench.analysis.summary import upgrade_summary
from mcpbench.loads import Load
from mcpbench.results import model
from mcpbench.results.layout import MeasurementDir, RunDir, runs_under
from mcpbench.results.model import SCHEMA, Config, Context, Environment, ResultsError, Run, Summary, document, parsed
from mcpbench.results.read import read_json, read_resources, read_samples
from mcpbench.results.upgrades import upgrade_context, upgrade_document, upgrade_run
from mcpbench.workload.file import with_call_kinds

__all__ = ["LoadKey", "Measurement", "ResultsDir", "ResultsError", "ServerRecord", "expand", "load",
           "load_results_dir"]


read_json = read_json


M = TypeVar("M", bound=BaseModel)


def read_optional(path: Path, kind: type[M]) -> M | None:
    """A file a server directory may lack (build.json of a prebuilt run, image.json of the local runtime),
    read as the model it is validated against (a versioned one, capacity.json or soak.json, upgraded first)."""
    if not path.is_file():
        return None
    if "schema_" in kind.model_fields:
        return parsed(kind, upgrade_document(kind, read_json(path), path), path)
    return parsed(kind, read_json(path), path)


@dataclass(frozen=True)
class LoadKey:
    """What makes two measurements comparable: the same mode, kind of load (mcpbench.loads) and level."""

    mode: str
    kind_name: str  # the kind's name (loads.KINDS)
    load: float    # the level: VUs (closed), iterations/s (open) or a fraction of round 1's closed max (open)
    basis: str = "abs"   # "abs" | "fraction" (open model keyed by rate_fraction: rates fixed after round 1)
                         # | "equal" (keyed by equal_fraction: one rate for every server, fixed after round 1)

    @property
    def kind(self) -> type[Load]:
        return load_kinds.kind(self.kind_name)

    @property
    def label(self) -> str:
        return self.kind.heading(self.mode, self.load, self.basis)

    @property
    def slug(self) -> str:
        return f"{self.mode}-{self.kind.level_slug(self.load, self.basis)}".replace(".", "_")

    @property
    def load_unit(self) -> str:
        return self.kind.unit_of(self.basis)

    @property
    def equal_load(self) -> bool:
        """Every server at this load was offered the same work rate (scenarios: Load.equal_load)."""
        return self.kind.equal_load(self.basis)

    @property
    def vus(self) -> float | None:
        """The level in VUs, for kinds whose level is VUs."""
        return self.load if self.kind.level_field == "vus" else None


@dataclass
class Measurement:
    """One <server>/<measurement-id>/ directory."""

    results: "ResultsDir"
    server: str
    mid: str
    path: Path
    summary: Summary
    schema_read: int = SCHEMA     # the schema its summary.json was written in (read as the current one)

    @property
    def status(self) -> str:
        return self.summary.status

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def run(self) -> int:
        return int(self.summary.run or 1)

    @property
    def round_id(self) -> tuple[str, int]:
        """Servers with the same round_id were measured in one round of one results directory: interleaved."""
        return (self.results.run_id, self.run)

    @property
    def flags(self) -> list[str]:
        return list(self.summary.flags)

    @property
    def key(self) -> LoadKey:
        s = self.summary
        where = self.directory.summary
        try:
            kind = load_kinds.kind(s.kind)
        except ValueError as exc:
            raise ResultsError(f"{where}: {exc}") from None
        level = kind.level_of(s)
        if level is None:
            raise ResultsError(f"{where}: no {kind.level_field}")
        return LoadKey(str(s.mode or "session"), kind.kind, *level)

    @property
    def window(self) -> tuple[float, float]:
        return float(self.summary.window.start_s), float(self.summary.window.end_s)

    @property
    def directory(self) -> MeasurementDir:
        return MeasurementDir(self.path)

    @cached_property
    def context(self) -> Context | None:
        """context.json, upgraded (None: a measurement without one)."""
        where = self.directory.context
        return upgrade_context(read_json(where), where) if where.is_file() else None

    def samples(self) -> pd.DataFrame:
        """The samples, each with its method and whether it is a counted call when the measurement's workload
        said (context.json `calls`; workload.file.with_call_kinds)."""
        samples = read_samples(self.directory.samples)
        return with_call_kinds(samples, self.context.calls) if self.context else samples

    def resources(self) -> pd.DataFrame:
        return read_resources(self.directory.resources)

    def files(self) -> list[Path]:
        return self.directory.files()


@dataclass
class ServerRecord:
    """A server as one results directory knows it: manifest, build, verify and run status."""

    name: str
    results: "ResultsDir"
    status: str = "ok"
    phase: str | None = None
    reason: str | None = None
    startup_s: float | None = None
    idle_mem_mb: float | None = None
    runtime_version: str | None = None  # what the interpreter/VM said it is (None for compiled servers)
    image: model.Image | None = None  # docker runtime: image.json (image, image_size_mb, cold_start_s, build_s…)
    manifest: model.Server | None = None   # server.json (None: the directory has none)
    build: model.Build | None = None
    verify: model.Verify | None = None
    # every experiment result file the server has (model.EXPERIMENT_RESULTS), upgraded and validated
    results_of: dict[str, BaseModel] = field(default_factory=dict)

    @property
    def capacity(self) -> model.Capacity | None:
        """`mcpbench capacity`: capacity.json (its ladders, a round each)."""
        result = self.results_of.get(model.CAPACITY_FILE)
        return result if isinstance(result, model.Capacity) else None

    @property
    def soak(self) -> model.SoakResult | None:
        """`mcpbench soak`: soak.json (verdicts, buckets, slopes)."""
        result = self.results_of.get(model.SOAK_FILE)
        return result if isinstance(result, model.SoakResult) else None

    @property
    def path(self) -> Path:
        return self.results.path / self.name

    @property
    def display_name(self) -> str:
        named = self.manifest.display_name if self.manifest else None
        return named or self.name

    def files(self) -> list[Path]:
        return sorted(p for p in self.path.iterdir() if p.is_file()) if self.path.is_dir() else []


@dataclass
class ResultsDir:
    path: Path
    run: Run
    schema_read: int = SCHEMA     # the schema its run.json was written in (read as the current one)
    servers: dict[str, ServerRecord] = field(default_factory=dict)
    measurements: list[Measurement] = field(default_factory=list)
    set_aside: list[str] = field(default_factory=list)  # host-disturbed measurements measured again: why, where

    @property
    def run_id(self) -> str:
        return str(self.run.run_id or self.path.name)

    @property
    def config(self) -> Config:
        return self.run.config

    @property
    def environment(self) -> Environment:
        return self.run.environment

    @property
    def status(self) -> str:
        return str(self.run.status or "unknown")

    @property
    def ranking_alpha(self) -> float | None:
        """The level a run with `--rounds auto` spent on each look: its rankings are tested at it (None: fixed
        rounds, the report's ALPHA)."""
        return self.run.rounds_auto.alpha if self.run.rounds_auto else None

    @property
    def rounds(self) -> int:
        """How many rounds the run was meant to have (run.json rounds, else config runs)."""
        return max(len(self.run.rounds or []), int(self.config.runs or 1))

    @cached_property
    def failed_measurements(self) -> list[Measurement]:
        return [m for m in self.measurements if not m.ok]


def expand(paths: list[Path]) -> list[Path]:
    """Results directories named on the command line; a directory holding several (results/) expands."""
    found: list[Path] = []
    for path in paths:
        if not path.exists():
            raise ResultsError(f"no such directory: {path}")
        if not path.is_dir():
            raise ResultsError(f"not a directory: {path}")
        if RunDir(path).exists():
            found.append(path)
            continue
        inner = [run.path for run in runs_under(path)]
        if not inner:
            raise ResultsError(f"{path} is not a results directory (no {RunDir(path).run_json.name} in it or in "
                               "its subdirectories)")
        found.extend(inner)
    unique = list(dict.fromkeys(p.resolve() for p in found))
    return unique


def load_results_dir(path: Path) -> ResultsDir:
    run_dir = RunDir(path)
    upgraded = upgrade_run(read_json(run_dir.run_json), run_dir.run_json)
    schema_read = int(upgraded.pop("schema_read"))
    run = parsed(Run, upgraded, run_dir.run_json)
    results = ResultsDir(path=path, run=run, schema_read=schema_read)
    declared = run.servers
    # _infra, _calibration…: the orchestrator's own directories, not servers (the harness's limits are
    # read from run.json's `calibration` and `harness_capacity`).
    found = {server.name: server for server in run_dir.servers()
             if server.server_json.is_file() or server.recorded()}
    for name in sorted(set(declared) | set(found)):
        server = found.get(name) or run_dir.server(name)
        info = declared.get(name)
        record = ServerRecord(
            name=name, results=results, status=str(info.status if info else "ok"), phase=info.phase if info else None,
            reason=info.reason if info else None, startup_s=info.startup_s if info else None,
            idle_mem_mb=info.idle_mem_mb if info else None, runtime_version=info.runtime_version if info else None,
            manifest=read_optional(server.server_json, model.Server),
            build=read_optional(server.build_json, model.Build),
            verify=read_optional(server.verify_json, model.Verify),
            image=read_optional(server.image_json, model.Image),
            results_of={file: result for file, path in server.results().items()
                        if (result := read_optional(path, model.EXPERIMENT_RESULTS[file])) is not None},
        )
        if name not in declared and run.status == "complete":
            record.reason = f"not listed in {run_dir.run_json.name}"
        results.servers[name] = record
        for measurement in server.recorded():
            typed, read_as = upgrade_summary(read_json(measurement.summary),
                                             {**document(run), "schema_read": schema_read}, measurement.summary)
            if typed.repeated:  # the host disturbed it and it was measured again: not a round of its own
                results.set_aside.append(f"{name}/{measurement.name}: {typed.repeated}")
                continue
            results.measurements.append(Measurement(results, name, measurement.name, measurement.path, typed, read_as))
    return results


def load(paths: list[Path]) -> list[ResultsDir]:
    return [load_results_dir(p) for p in expand(paths)]
