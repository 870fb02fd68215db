"""Choosing servers by name from what discovery found, with clear messages for typos."""

from __future__ import annotations

import difflib

from mcpbench.catalog.manifest import Discovery, ServerSpec


class SelectionError(ValueError):
    pass


def select(discovery: Discovery, names: list[str] | None, stacks_only: bool = False) -> list[ServerSpec]:
    """The named servers, in the order given; without names every server discovered (less the what-if
    variants with `stacks_only`: a named server is measured whatever it is)."""
    available = discovery.by_name()
    if not names:
        return [spec for spec in discovery.servers if not (stacks_only and spec.what_if)]
    chosen = []
    for name in names:
        if name not in available:
            close = difflib.get_close_matches(name, available, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            broken = [str(e) for e in discovery.errors if e.path.parent.name == name]
            if broken:
                raise SelectionError(f"server '{name}' has a broken manifest: {broken[0]}")
            raise SelectionError(f"no server named '{name}'{hint}; `mcpbench list` shows what was discovered")
        chosen.append(available[name])
    return chosen
