"""The recorded measurements the analysis scripts (window_precision.py, warmup_floor.py) read again: one place
that says which ones count."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from mcpbench.results.layout import RunDir


def ok_measurements(runs: Iterable[Path], min_window_s: float) -> Iterator[tuple[str, Path, dict[str, Any]]]:
    """(server, measurement directory, summary) of every `ok` server measurement whose window lasted at least
    min_window_s; calibrations and host-disturbed ones (measured again) left out."""
    for run in runs:
        for measurement in RunDir(run).measurements():
            if not measurement.context.is_file():
                continue
            directory, server = measurement.path, measurement.server
            summary = json.loads(measurement.summary.read_text())
            if summary["status"] == "ok" and summary["window"]["end_s"] - summary["window"]["start_s"] >= min_window_s:
                yield server, directory, summary
