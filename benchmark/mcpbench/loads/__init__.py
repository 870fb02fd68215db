"""The kinds of load by name (the `kind` recorded in results, `executor` before schema 4): the one place a new
kind is registered."""

from __future__ import annotations

from mcpbench.loads.base import (
    LIST_TOOLS,
    METHODS,
    MODE_PROTOCOL,
    MODE_TRANSPORT,
    MODES,
    Load,
    Mode,
    Model,
    Stage,
    counted,
    in_window,
    methods_of,
    tool_calls,
    with_kinds,
)
from mcpbench.loads.closed import ClosedLoad, iteration_end
from mcpbench.loads.open import OpenLoad
from mcpbench.loads.spike import SpikeLoad
from mcpbench.loads.staged import StagedLoad

KINDS: dict[str, type[Load]] = {ClosedLoad.kind: ClosedLoad, OpenLoad.kind: OpenLoad, StagedLoad.kind: StagedLoad,
                                SpikeLoad.kind: SpikeLoad}
DEFAULT_KIND = ClosedLoad.kind


def kind(name: str | None) -> type[Load]:
    """The kind recorded as `kind` (results before kinds were recorded are closed)."""
    try:
        return KINDS[name or DEFAULT_KIND]
    except KeyError:
        raise ValueError(f"unknown load kind {name!r}; known: {', '.join(KINDS)}") from None


__all__ = ["DEFAULT_KIND", "KINDS", "LIST_TOOLS", "METHODS", "MODE_PROTOCOL", "MODE_TRANSPORT", "MODES", "ClosedLoad",
           "Load", "Mode", "Model", "OpenLoad", "Stage", "counted", "in_window", "iteration_end", "kind", "methods_of",
           "tool_calls", "with_kinds"]
