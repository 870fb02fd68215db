"""The load generators by name: the one place a new one (k6 on other hosts, another tool writing the
same samples) is registered (docs/architecture.md)."""

from __future__ import annotations

from .base import LiveView, LoadError, LoadGenerator, LoadRun, StdioLaunch, Tick
from .k6 import COUNTS_FILE, LocalK6, read_counts
from .stdio import StdioDriver

GENERATORS: dict[str, type[LoadGenerator]] = {LocalK6.name: LocalK6, StdioDriver.name: StdioDriver}
DEFAULT = LocalK6.name


def create(name: str, cpus: tuple[int, ...] | None, instances: int = 1) -> LoadGenerator:
    try:
        generator = GENERATORS[name]
    except KeyError:
        raise ValueError(f"unknown load generator {name!r}; choose from {', '.join(GENERATORS)}") from None
    return generator(cpus, instances)


__all__ = ["COUNTS_FILE", "DEFAULT", "GENERATORS", "LiveView", "LoadError", "LoadGenerator", "LoadRun",
           "LocalK6", "StdioLaunch", "Tick", "create", "read_counts"]
