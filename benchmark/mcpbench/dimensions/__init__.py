"""The dimensions by name (docs/dimensions.md): what `mcpbench dimension --dimension NAME` measures besides the
workload's one small tool call. Every module of this package that holds `DIMENSION` (a Dimension, base.py) is
one: its points and the contract settings that start each point's twin, the calls it is measured with (each
reply checked by the load driver as it arrives), what its section of the Dimensions page shows and the question
the decision page asks of it — both recorded in the run (run.json `config.dimension`), so the report reads them
without this package. `register` takes a dimension defined outside the package (a test's toy dimension, a
plugin); a server's manifest opts out of any of them by name (`[server] unsupported = { NAME = "why" }`)."""

from __future__ import annotations

import importlib
import pkgutil

from mcpbench.dimensions.base import Dimension, Point, Question

ADDED: dict[str, Dimension] = {}


def registry() -> dict[str, Dimension]:
    """name → dimension: the package's in their order, then those registered from outside."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        dimension = getattr(importlib.import_module(f"{__name__}.{info.name}"), "DIMENSION", None)
        if dimension is not None:
            found.append(dimension)
    return {d.name: d for d in sorted(found, key=lambda d: d.order)} | ADDED


def names() -> tuple[str, ...]:
    return tuple(registry())


def opt_outs() -> tuple[str, ...]:
    """What a manifest's `unsupported` may name: a dimension, or a point's own opt-out (the surface's `completion`)."""
    points = (point for d in registry().values() for point in d.points + d.more_points)
    return names() + tuple(sorted({point.opt_out for point in points if point.opt_out} - set(names())))


def register(dimension: Dimension) -> Dimension:
    """Add a dimension defined outside the package; a name another dimension has is a ValueError."""
    if dimension.name in registry() and registry()[dimension.name] is not dimension:
        raise ValueError(f"a dimension named {dimension.name!r} is already registered")
    ADDED[dimension.name] = dimension
    return dimension


def dimension(name: str | None) -> Dimension:
    """The dimension of this name; ValueError naming the choices."""
    known = registry()
    if name not in known:
        raise ValueError(f"--dimension {name!r}: choose {', '.join(known)}")
    return known[name]


__all__ = ["ADDED", "Dimension", "Point", "Question", "dimension", "names", "opt_outs", "register", "registry"]
