"""The experiments by name (docs/architecture.md): every module of this package that holds `EXPERIMENT`, an
Experiment subclass (base.py), is one — a new experiment is its module, and nothing else names it. The CLI
builds a command for each (`mcpbench <name>`, in the classes' `order`), the runner runs it. `ADDED` takes an
experiment defined outside the package (a test's toy experiment, a plugin)."""

from __future__ import annotations

import importlib
import pkgutil
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcpbench.experiments.base import Experiment

ADDED: dict[str, type[Experiment]] = {}


def registry() -> dict[str, type[Experiment]]:
    """name → class: the package's experiments in their order, then those ADDED."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        cls = getattr(importlib.import_module(f"{__name__}.{info.name}"), "EXPERIMENT", None)
        if cls is not None:
            found.append(cls)
    return {cls.name: cls for cls in sorted(found, key=lambda c: c.order)} | ADDED


def names() -> tuple[str, ...]:
    return tuple(registry())


def experiment_class(name: str) -> type[Experiment]:
    known = registry()
    if name not in known:
        raise ValueError(f"unknown experiment {name!r}; choose from {', '.join(known)}")
    return known[name]
