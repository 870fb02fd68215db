"""The load generators by name: the one place a new one (the driver on other hosts, another tool writing the
same samples) is registered (docs/architecture.md). The load driver is the default and speaks every mode;
k6 runs only where the user installed it (`--loadgen k6`)."""

from __future__ import annotations

from mcpbench.loadgen.base import LiveView, LoadError, LoadGenerator, LoadRun, StdioLaunch, Tick
from mcpbench.loadgen.driver import LoadDriver
from mcpbench.loadgen.instances import LocalInstances, read_counts
from mcpbench.loadgen.k6 import LocalK6

GENERATORS: dict[str, type[LocalInstances]] = {LoadDriver.name: LoadDriver, LocalK6.name: LocalK6}
DEFAULT = LoadDriver.name


def create(name: str, cpus: tuple[int, ...] | None, instances: int = 1) -> LoadGenerator:
    try:
        generator = GENERATORS[name]
    except KeyError:
        raise ValueError(f"unknown load generator {name!r}; choose from {', '.join(GENERATORS)}") from None
    return generator(cpus, instances)


def for_transport(name: str, transport: str) -> str:
    """The generator a mode's transport uses: the chosen one where it speaks that transport, else the
    default (k6 speaks no stdio: stdio modes then use the load driver)."""
    return name if transport in GENERATORS[name].transports else DEFAULT


__all__ = ["DEFAULT", "GENERATORS", "LiveView", "LoadDriver", "LoadError", "LoadGenerator", "LoadRun",
           "LocalK6", "StdioLaunch", "Tick", "create", "for_transport", "read_counts"]
