"""The readers of a measurement's raw files (samples, resources, processes) and of any results JSON file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from mcpbench.results.model import (
    FIRST_MS,
    PROCESS_COLUMNS,
    PROCESS_SOCKET_COLUMNS,
    RESOURCE_COLUMNS,
    SAMPLE_COLUMNS,
    ResultsError,
    Sample,
)
from mcpbench.results.upgrades import OLD_COMPONENTS


def read_json(path: Path) -> Any:
    """A results JSON file's content; ResultsError (one line) when it is missing or no JSON."""
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise ResultsError(f"missing file: {path}") from None
    except json.JSONDecodeError as exc:
        raise ResultsError(f"{path} is not valid JSON: {exc}") from None


def read_samples(path: Path) -> pd.DataFrame:
    """samples.csv.gz with its documented columns and types (http_ms stays a ';'-joined string)."""
    if not path.is_file():
        raise ResultsError(f"missing file: {path}")
    try:
        df = pd.read_csv(path, dtype={"tool": str, "error_kind": str, "http_ms": str}, keep_default_na=False,
                         na_values={"t_s": [""], "call_ms": [""], "session_ms": [""], FIRST_MS: [""]})
    except (OSError, EOFError, pd.errors.ParserError) as exc:
        raise ResultsError(f"{path}: cannot read samples: {exc}") from None
    missing = [c for c in SAMPLE_COLUMNS if c not in df.columns]
    if missing:
        raise ResultsError(f"{path}: missing columns {', '.join(missing)}")
    df["ok"] = pd.to_numeric(df["ok"], errors="coerce").fillna(0).astype(int)
    for col in ("t_s", "call_ms", "session_ms"):
        df[col] = pd.to_numeric(df[col], errors="coerce")
    df[FIRST_MS] = pd.to_numeric(df[FIRST_MS], errors="coerce") if FIRST_MS in df.columns else float("nan")
    return df


def read_resources(path: Path) -> pd.DataFrame:
    """resources.csv (t_s counted from the load test's start); an empty frame when the measurement has none.
    The load generator's component was `k6` before schema 3: read as `loadgen`."""
    if not path.is_file():
        return pd.DataFrame(columns=list(RESOURCE_COLUMNS))
    frame = pd.read_csv(path)
    frame["component"] = frame["component"].replace(OLD_COMPONENTS)
    return frame


def read_processes(path: Path) -> pd.DataFrame:
    """processes.csv (t_s counted from the scenario start); an empty frame when the measurement has none."""
    if not path.is_file():
        return pd.DataFrame(columns=[*PROCESS_COLUMNS, *PROCESS_SOCKET_COLUMNS])
    frame = pd.read_csv(path)
    missing = [c for c in PROCESS_COLUMNS if c not in frame.columns]
    if missing:
        raise ResultsError(f"{path}: missing columns {', '.join(missing)}")
    for column in PROCESS_SOCKET_COLUMNS:  # a file written before the socket counts were read
        if column not in frame.columns:
            frame[column] = pd.NA
    return frame


def resource_samples(path: Path) -> list[Sample]:
    """resources.csv back as the sampler's samples (what analysis.summarize takes)."""
    frame = read_resources(path)
    return [Sample(float(t_s), str(component), float(cpu_pct), float(mem_mb))
            for t_s, component, cpu_pct, mem_mb in zip(frame["t_s"], frame["component"], frame["cpu_pct"],
                                                       frame["mem_mb"], strict=True)]


def http_durations(df: pd.DataFrame) -> pd.Series:
    """Every HTTP request duration (ms) of the given sessions, from the ';'-joined http_ms column."""
    values = df["http_ms"].astype(str).str.split(";").explode()
    values = pd.to_numeric(values[values != ""], errors="coerce")
    return values.dropna().astype(float)


