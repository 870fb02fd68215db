"""The runtimes by name: the one place a new runtime is registered (docs/architecture.md).

Entries are import paths, imported only when chosen: the local path must work on a machine without the
docker package's engine, and `mcpbench --help` must not pay for importing every runtime.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from mcpbench.host.profile import ResourceProfile
    from mcpbench.runtime.base import Runtime



class Entry(NamedTuple):
    path: str         # module:class of its Runtime
    description: str  # what the report says the servers ran as


RUNTIMES: dict[str, Entry] = {
    "local": Entry("mcpbench.runtime.local:LocalRuntime", "local processes in cgroups"),
    "docker": Entry("mcpbench.runtime.docker:DockerRuntime", "containers under docker compose"),
    "swarm": Entry("mcpbench.runtime.swarm:SwarmRuntime",
                   "containers on a Docker swarm: server, infrastructure and load on nodes of their own"),
}
DEFAULT = "local"


class UnknownRuntime(ValueError):
    pass


def names() -> tuple[str, ...]:
    return tuple(RUNTIMES)


def check(name: str) -> str:
    if name not in RUNTIMES:
        raise UnknownRuntime(f"unknown runtime {name!r}; choose from {', '.join(RUNTIMES)}")
    return name


def runtime_class(name: str) -> type[Runtime]:
    return _load(RUNTIMES[check(name)].path)


def description(name: str) -> str:
    """What the report says of a runtime; a name this version does not know is shown as it is."""
    entry = RUNTIMES.get(name)
    return entry.description if entry else name


def create(name: str, profile: ResourceProfile, registry: str | None = None) -> Runtime:
    """The runtime `name`; `registry` for one that moves images through a registry (takes_registry)."""
    cls = runtime_class(name)
    if registry:
        if not cls.takes_registry:
            raise ValueError(f"the {name} runtime takes no registry")
        return cls(profile, registry=registry)  # type: ignore[call-arg]
    return cls(profile)


def _load(path: str):
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)
