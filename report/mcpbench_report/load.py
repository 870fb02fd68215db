"""Read results directories (docs/results-format.md, schema 1) into plain objects and pandas frames.

Nothing here computes a figure: this module only finds, parses and validates files. Samples and resource
series are read on demand (they are the large files) and handed back as DataFrames.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

SCHEMA = 1
SAMPLE_COLUMNS = ("t_s", "vu", "tool", "ok", "error_kind", "call_ms", "session_ms", "http_ms")
TOOL_LIST = "tools/list"


class ResultsError(Exception):
    """Input the report cannot use; the message says what and where, for the person at the terminal."""


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise ResultsError(f"missing file: {path}") from None
    except json.JSONDecodeError as exc:
        raise ResultsError(f"{path} is not valid JSON: {exc}") from None


def read_json_optional(path: Path) -> Any:
    return read_json(path) if path.is_file() else None


@dataclass(frozen=True)
class LoadKey:
    """What makes two measurements comparable: the same mode at the same load (closed: VUs; open: rate)."""

    mode: str
    executor: str  # "closed" | "open"
    load: float    # VUs (closed) or iterations/s (open)

    @property
    def label(self) -> str:
        if self.executor == "open":
            return f"{self.mode} · {self.load:g} it/s"
        return f"{self.mode} · {self.load:g} VUs"

    @property
    def slug(self) -> str:
        kind = "rate" if self.executor == "open" else "vu"
        return f"{self.mode}-{self.load:g}{kind}".replace(".", "_")

    @property
    def load_unit(self) -> str:
        return "iterations/s (offered)" if self.executor == "open" else "VUs"


@dataclass
class Measurement:
    """One <server>/<measurement-id>/ directory."""

    results: "ResultsDir"
    server: str
    mid: str
    path: Path
    summary: dict

    @property
    def status(self) -> str:
        return self.summary.get("status", "ok")

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def run(self) -> int:
        return int(self.summary.get("run") or 1)

    @property
    def key(self) -> LoadKey:
        s = self.summary
        executor = s.get("executor") or "closed"
        load = s.get("rate") if executor == "open" else s.get("vus")
        if load is None:
            raise ResultsError(f"{self.path / 'summary.json'}: no {'rate' if executor == 'open' else 'vus'}")
        return LoadKey(str(s.get("mode") or "session"), executor, float(load))

    @property
    def window(self) -> tuple[float, float]:
        w = self.summary.get("window") or {}
        try:
            return float(w["start_s"]), float(w["end_s"])
        except (KeyError, TypeError, ValueError):
            raise ResultsError(f"{self.path / 'summary.json'}: no measured window") from None

    def samples(self) -> pd.DataFrame:
        return read_samples(self.path / "samples.csv.gz")

    def resources(self) -> pd.DataFrame:
        return read_resources(self.path / "resources.csv")

    def files(self) -> list[Path]:
        return sorted(p for p in self.path.iterdir() if p.is_file())


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
    image: dict | None = None  # docker runtime: image.json (image, image_size_mb, cold_start_s, build_s…)
    manifest: dict = field(default_factory=dict)
    build: dict | None = None
    verify: dict | None = None

    @property
    def path(self) -> Path:
        return self.results.path / self.name

    @property
    def display_name(self) -> str:
        return str(self.manifest.get("display_name") or self.name)

    def files(self) -> list[Path]:
        return sorted(p for p in self.path.iterdir() if p.is_file()) if self.path.is_dir() else []


@dataclass
class ResultsDir:
    path: Path
    run: dict
    servers: dict[str, ServerRecord] = field(default_factory=dict)
    measurements: list[Measurement] = field(default_factory=list)

    @property
    def run_id(self) -> str:
        return str(self.run.get("run_id") or self.path.name)

    @property
    def config(self) -> dict:
        return self.run.get("config") or {}

    @property
    def environment(self) -> dict:
        return self.run.get("environment") or {}

    @property
    def status(self) -> str:
        return str(self.run.get("status") or "unknown")

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
        if (path / "run.json").is_file():
            found.append(path)
            continue
        inner = sorted(p.parent for p in path.glob("*/run.json"))
        if not inner:
            raise ResultsError(f"{path} is not a results directory (no run.json in it or in its subdirectories)")
        found.extend(inner)
    unique = list(dict.fromkeys(p.resolve() for p in found))
    return unique


def load_results_dir(path: Path) -> ResultsDir:
    run = read_json(path / "run.json")
    if not isinstance(run, dict) or run.get("schema") != SCHEMA:
        found = run.get("schema") if isinstance(run, dict) else run
        raise ResultsError(f"{path / 'run.json'}: unsupported schema {found!r} (this report reads schema {SCHEMA})")
    results = ResultsDir(path=path, run=run)
    declared = run.get("servers") or {}
    names = set(declared) | {p.parent.name for p in path.glob("*/server.json")}
    names |= {p.parent.parent.name for p in path.glob("*/*/summary.json")}
    for name in sorted(names):
        info = declared.get(name) or {}
        record = ServerRecord(
            name=name, results=results, status=str(info.get("status") or "ok"), phase=info.get("phase"),
            reason=info.get("reason"), startup_s=info.get("startup_s"), idle_mem_mb=info.get("idle_mem_mb"),
            runtime_version=info.get("runtime_version"),
            manifest=read_json_optional(path / name / "server.json") or {},
            build=read_json_optional(path / name / "build.json"),
            verify=read_json_optional(path / name / "verify.json"),
            image=read_json_optional(path / name / "image.json"),
        )
        if name not in declared and run.get("status") == "complete":
            record.reason = "not listed in run.json"
        results.servers[name] = record
        for summary_path in sorted((path / name).glob("*/summary.json")):
            summary = read_json(summary_path)
            if not isinstance(summary, dict) or summary.get("schema", SCHEMA) != SCHEMA:
                raise ResultsError(f"{summary_path}: unsupported schema")
            results.measurements.append(Measurement(results, name, summary_path.parent.name, summary_path.parent,
                                                    summary))
    return results


def load(paths: list[Path]) -> list[ResultsDir]:
    return [load_results_dir(p) for p in expand(paths)]


def read_samples(path: Path) -> pd.DataFrame:
    """samples.csv.gz with its documented columns and types (http_ms stays a ';'-joined string)."""
    if not path.is_file():
        raise ResultsError(f"missing file: {path}")
    try:
        df = pd.read_csv(path, dtype={"tool": str, "error_kind": str, "http_ms": str}, keep_default_na=False,
                         na_values={"t_s": [""], "call_ms": [""], "session_ms": [""]})
    except (OSError, EOFError, pd.errors.ParserError) as exc:
        raise ResultsError(f"{path}: cannot read samples: {exc}") from None
    missing = [c for c in SAMPLE_COLUMNS if c not in df.columns]
    if missing:
        raise ResultsError(f"{path}: missing columns {', '.join(missing)}")
    df["ok"] = pd.to_numeric(df["ok"], errors="coerce").fillna(0).astype(int)
    for col in ("t_s", "call_ms", "session_ms"):
        df[col] = pd.to_numeric(df[col], errors="coerce")
    return df


def read_resources(path: Path) -> pd.DataFrame:
    if not path.is_file():
        return pd.DataFrame(columns=["t_s", "component", "cpu_pct", "mem_mb"])
    return pd.read_csv(path)


def in_window(df: pd.DataFrame, window: tuple[float, float]) -> pd.DataFrame:
    """Rows of samples or resources inside [start, end): the measured window."""
    start, end = window
    return df[(df["t_s"] >= start) & (df["t_s"] < end)]


def http_durations(df: pd.DataFrame) -> pd.Series:
    """Every HTTP request duration (ms) of the given sessions, from the ';'-joined http_ms column."""
    values = df["http_ms"].astype(str).str.split(";").explode()
    values = pd.to_numeric(values[values != ""], errors="coerce")
    return values.dropna().astype(float)
