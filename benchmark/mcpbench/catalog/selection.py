"""Choosing servers by name from what discovery found, with clear messages for typos."""

from __future__ import annotations

import dataclasses
import difflib
import re

from mcpbench.catalog.manifest import Discovery, ServerSpec
from mcpbench.results.model import TWIN_KEY, TWIN_SUFFIX, TWIN_VALUE


class SelectionError(ValueError):
    pass


def select(discovery: Discovery, names: list[str] | None, stacks_only: bool = False,
           first_run: bool = False) -> list[ServerSpec]:
    """The named servers, in the order given; without names every server discovered, less the what-if
    variants with `stacks_only`, and less those and the alternatives (`alternative_to`) with `first_run`: a
    named server is measured whatever it is."""
    available = discovery.by_name()
    if not names:
        dropped = {spec.name for spec in left_out(discovery, stacks_only, first_run)}
        return [spec for spec in discovery.servers if spec.name not in dropped]
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


def left_out(discovery: Discovery, stacks_only: bool, first_run: bool) -> list[ServerSpec]:
    """What a run without server names leaves out: the what-if variants (`--stacks-only`, `--first-run`) and the
    alternatives around an SDK measured already (`--first-run`)."""
    return [spec for spec in discovery.servers
            if ((stacks_only or first_run) and spec.what_if) or (first_run and spec.alternative_to)]


WHAT_IF = re.compile(r"^(?P<label>[a-z0-9][a-z0-9-]*):(?P<key>[A-Za-z_][A-Za-z0-9_]*)=(?P<value>.*)$")


def _twin(spec: ServerSpec, taken: set[str], label: str, settings: dict[str, str], display: str,
          asked: str) -> ServerSpec:
    """The server NAME-LABEL: `spec` started with `settings` over its environment (a what-if of one setting)."""
    name = f"{spec.name}-{label}"
    if name in taken:
        raise SelectionError(f"{asked}: {name} is already a server's name; choose another label")
    what_if = ",".join(f"{key}={value}" for key, value in settings.items())
    return dataclasses.replace(
        spec, name=name, info=spec.info.model_copy(update={"display_name": f"{spec.info.display_name} ({display})"}),
        variant_of=spec.name, what_if=what_if, overrides={**spec.overrides, **settings},
        run_env={**spec.run_env, **settings},
        stdio_env={**spec.stdio_env, **settings} if spec.stdio_env is not None else None)


def setting_twin(spec: ServerSpec, discovery_names: set[str], label: str, settings: dict[str, str],
                 display: str) -> ServerSpec:
    """`spec` as NAME-LABEL, started with `settings` (contract settings such as EXTRA_TOOLS) over its environment:
    an experiment's configuration point, named like a what-if twin."""
    return _twin(spec, discovery_names, label, settings, display, f"{label} ({display})")


def what_if_twins(chosen: list[ServerSpec], discovery: Discovery, what_if: str) -> list[ServerSpec]:
    """`--what-if LABEL:KEY=VALUE`: each chosen server followed by its twin NAME-LABEL, the same server started
    with KEY=VALUE over its environment, measured in the same rounds (the report pairs them round by round). A
    what-if of one setting for one run, without a manifest variant for it (DNS-rebinding protection off:
    `unguarded:ALLOWED_HOSTS=*`)."""
    match = WHAT_IF.match(what_if)
    if not match:
        raise SelectionError(f"--what-if {what_if!r}: give LABEL:KEY=VALUE, e.g. unguarded:ALLOWED_HOSTS=*")
    label, key, value = match["label"], match["key"], match["value"]
    taken = set(discovery.by_name())
    out = []
    for spec in chosen:
        out += [spec, _twin(spec, taken, label, {key: value}, f"{key}={value}", f"--what-if {what_if!r}")]
    return out


def aa_twins(chosen: list[ServerSpec], discovery: Discovery, names: list[str]) -> tuple[list[ServerSpec], list[str]]:
    """`--twin SERVER`: the named servers' A/A twins NAME-twin (results.model.TWIN_WHAT_IF, a setting no server
    reads), each right after its original: the same server measured twice in every round, which the report
    must never separate (a self-check of the run and of its statistics). Returns the servers and the names
    left without a twin because they are not measured (scripts/bench.sh asks for rust's twin whatever the
    servers named): an unknown name is an error, a known one not chosen is said and left out."""
    taken = set(discovery.by_name())
    by_name = {spec.name: spec for spec in chosen}
    out, left_out = list(chosen), []
    for name in names:
        if name not in by_name:
            if name not in taken:
                raise SelectionError(f"--twin {name}: no server named '{name}'")
            left_out.append(name)
            continue
        twin = _twin(by_name[name], taken, TWIN_SUFFIX, {TWIN_KEY: TWIN_VALUE}, "A/A twin", f"--twin {name}")
        out.insert(out.index(by_name[name]) + 1, twin)
    return out, left_out
