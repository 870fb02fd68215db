"""The recorded measurements the analysis scripts (window_precision.py, warmup_floor.py) read again: one place
that says which ones count."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from mcpbench.results.model import CONTEXT_FILE, SUMMARY_FILE


def ok_measurements(runs: Iterable[Path], min_window_s: float) -> Iterator[tuple[str, Path, dict[str, Any]]]:
    """(server, measurement directory, summary) of every `ok` server measurement whose window lasted at least
    min_window_s; calibrations and host-disturbed ones (measured again) left out."""
    for run in runs:
        for context in sorted(run.glob("*/*/" + CONTEXT_FILE)):
            directory = context.parent
            server = directory.parent.name
            if server.startswith("_") or ".disturbed" in directory.name:
                continue
            summary = json.loads((directory / SUMMARY_FILE).read_text())
            if summary["status"] == "ok" and summary["window"]["end_s"] - summary["window"]["start_s"] >= min_window_s:
                yield server, directory, summary
