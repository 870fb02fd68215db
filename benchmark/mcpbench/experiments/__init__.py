"""The experiments by name: the one place a new one is registered (docs/architecture.md). Each is a module with
an Experiment subclass (base.py); the CLI builds a command for each (`mcpbench <name>`), the runner runs it.

Entries are import paths, imported when the command line is built or the experiment chosen."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcpbench.experiments.base import Experiment

EXPERIMENTS: dict[str, str] = {
    "verify": "mcpbench.experiments.verify:VerifyExperiment",
    "run": "mcpbench.experiments.run:RunExperiment",
    "capacity": "mcpbench.experiments.capacity:CapacityExperiment",
    "soak": "mcpbench.experiments.soak:SoakExperiment",
    "calibrate": "mcpbench.experiments.calibrate:CalibrateExperiment",
}


def names() -> tuple[str, ...]:
    return tuple(EXPERIMENTS)


def experiment_class(name: str) -> type[Experiment]:
    if name not in EXPERIMENTS:
        raise ValueError(f"unknown experiment {name!r}; choose from {', '.join(EXPERIMENTS)}")
    module, _, attr = EXPERIMENTS[name].partition(":")
    return getattr(importlib.import_module(module), attr)
