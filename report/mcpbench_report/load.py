"""Read results directories (docs/results-format.md, schemas 1 and 2) into plain objects and pandas frames.

Nothing here measures: this module finds, parses, validates and upgrades files. Samples and resource
series are read on demand (they are the large files) and handed back as DataFrames.

Versions (asv-style "api_version + update"): every run.json and summary.json read is upgraded to the
current SCHEMA by `upgrade_run` / `upgrade_summary`, one step per version. A field the old version never
recorded is filled with an honest null (None) and, where a reader could mistake the null for a verdict, the
upgrade says why (e.g. `publishable` is None = "not assessed"). The schema the file was written with stays
in `schema_read`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

SCHEMA = 2                # what this reader produces; older files are upgraded
SCHEMAS = (1, 2)          # what it reads
NOT_ASSESSED = ("not assessed: schema-1 result, written before the publishable check "
                "(no k6 cross-checks, host probe or calibrated ceiling were recorded)")
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
    load: float    # VUs (closed), iterations/s (open) or the fraction of round 1's closed max (open, schema 2)
    basis: str = "abs"   # "abs" | "fraction" (open model keyed by rate_fraction: rates fixed after round 1)

    @property
    def label(self) -> str:
        if self.basis == "fraction":
            return f"{self.mode} · {self.load * 100:g} % of round-1 max"
        if self.executor == "open":
            return f"{self.mode} · {self.load:g} it/s"
        return f"{self.mode} · {self.load:g} VUs"

    @property
    def slug(self) -> str:
        if self.basis == "fraction":
            return f"{self.mode}-{self.load * 100:g}pct".replace(".", "_")
        kind = "rate" if self.executor == "open" else "vu"
        return f"{self.mode}-{self.load:g}{kind}".replace(".", "_")

    @property
    def load_unit(self) -> str:
        if self.basis == "fraction":
            return "% of round 1's closed maximum (offered)"
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
    def round_id(self) -> tuple[str, int]:
        """Servers with the same round_id were measured in one round of one results directory: interleaved."""
        return (self.results.run_id, self.run)

    @property
    def flags(self) -> list[str]:
        return list(self.summary.get("flags") or [])

    @property
    def key(self) -> LoadKey:
        s = self.summary
        executor = s.get("executor") or "closed"
        if executor == "open" and s.get("rate_fraction") is not None:
            return LoadKey(str(s.get("mode") or "session"), executor, float(s["rate_fraction"]), "fraction")
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

    @property
    def schema_read(self) -> int:
        return int(self.run.get("schema_read") or SCHEMA)

    @property
    def rounds(self) -> int:
        """How many rounds the run was meant to have (run.json rounds, else config runs)."""
        return max(len(self.run.get("rounds") or []), int(self.config.get("runs") or 1))

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


def _upgrade_run_1(run: dict) -> dict:
    """schema 1 -> 2: no calibration, no round orders recorded; config keys of schema 2 where derivable."""
    run = dict(run, schema=2)
    run.setdefault("calibration", None)
    run.setdefault("rounds", None)
    run.setdefault("error", None)
    return run


def _upgrade_summary_1(summary: dict, run: dict) -> dict:
    """schema 1 -> 2. Old `v2_rps` counted every HTTP request: it becomes `http_rps`, and v2_rps (a new
    definition) is None: the report recounts it from the samples. Fields never recorded are None;
    `publishable` is False when the old file already shows a reason (status, a flag), else None (not
    assessed) with NOT_ASSESSED as the reason."""
    from mcpbench import analysis   # the orchestrator's definitions: one function for both schemas

    s = dict(summary, schema=2)
    thr = dict(s.get("throughput") or {})
    if "http_rps" not in thr:
        thr["http_rps"] = thr.get("v2_rps")
    for k in ("v2_rps", "v2_requests", "v2_rps_whole_run", "v2_requests_whole_run", "k6_run_s"):
        thr[k] = None
    s["throughput"] = thr
    lat = dict(s.get("latency_ms") or {})
    lat.setdefault("tool_call_all", None)
    lat.setdefault("v2_tools_call", None)
    s["latency_ms"] = lat
    s.setdefault("round_order", None)
    s.setdefault("rate_fraction", None)
    warmup_s = (run.get("config") or {}).get("warmup_s")
    s.setdefault("warmup", {"used_s": warmup_s, "min_s": warmup_s, "cap_s": warmup_s, "steady": None})
    s.setdefault("efficiency", analysis.efficiency(thr, s.get("resources") or {}))
    s.setdefault("host", None)
    s.setdefault("ceiling", {"tool_calls_per_s": None, "fraction": None})
    s.setdefault("checks", None)
    reasons = []
    if s.get("status", "ok") != "ok":
        reasons.append(f"status {s.get('status')}" + (f" ({s.get('phase')})" if s.get("phase") else ""))
    reasons += [f"flag: {f}" for f in s.get("flags") or []]
    s["publishable"] = False if reasons else None
    s["unpublishable_reasons"] = reasons + [NOT_ASSESSED]
    return s


RUN_UPGRADES = {1: _upgrade_run_1}
SUMMARY_UPGRADES = {1: _upgrade_summary_1}


def upgrade_run(run: dict, where: Path) -> dict:
    """run.json of any readable schema, as the current SCHEMA (the original in `schema_read`)."""
    found = run.get("schema") if isinstance(run, dict) else run
    if not isinstance(run, dict) or found not in SCHEMAS:
        raise ResultsError(f"{where}: unsupported schema {found!r} (this report reads schemas "
                           f"{', '.join(map(str, SCHEMAS))})")
    original = found
    while run["schema"] != SCHEMA:
        run = RUN_UPGRADES[run["schema"]](run)
    run["schema_read"] = original
    return run


def upgrade_summary(summary: dict, run: dict, where: Path) -> dict:
    if not isinstance(summary, dict):
        raise ResultsError(f"{where}: unsupported schema")
    found = summary.get("schema", run.get("schema_read", SCHEMA))
    if found not in SCHEMAS:
        raise ResultsError(f"{where}: unsupported schema {found!r}")
    summary = dict(summary, schema=found)
    while summary["schema"] != SCHEMA:
        summary = SUMMARY_UPGRADES[summary["schema"]](summary, run)
    summary["schema_read"] = found
    return summary


def load_results_dir(path: Path) -> ResultsDir:
    run = upgrade_run(read_json(path / "run.json"), path / "run.json")
    results = ResultsDir(path=path, run=run)
    declared = run.get("servers") or {}
    names = set(declared) | {p.parent.name for p in path.glob("*/server.json")}
    names |= {p.parent.parent.name for p in path.glob("*/*/summary.json")}
    # _infra, _calibration…: the orchestrator's own directories, not servers (the harness ceiling is
    # read from run.json's `calibration`).
    names = {name for name in names if not name.startswith("_")}
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
            summary = upgrade_summary(read_json(summary_path), run, summary_path)
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
