"""What every `mcpbench` command module shares: the console, the parameters built from the experiments'
declared options (one declaration for a command and an experiment alike), error exits, server selection."""

from __future__ import annotations

import atexit
import json
import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer
from rich.console import Console

from mcpbench.catalog.manifest import ServerSpec, discover
from mcpbench.catalog.selection import SelectionError, aa_twins, left_out, select, what_if_twins
from mcpbench.catalog.target import TargetError, target_specs
from mcpbench.experiments.options import PLACEMENT, RESULTS, SELECTION, Option, Values
from mcpbench.host import processes
from mcpbench.results.write import io_said


def log_console(stderr: bool = False) -> Console:
    """The console a command prints its progress on. Not a terminal (a CI's log, a file): no animation (rich
    shows none there) and no wrapping at 80 columns, so each measurement is one line a log viewer can grep."""
    out = Console(stderr=stderr)
    out.soft_wrap = not out.is_terminal
    return out


console = log_console()


def annotation(option: Option) -> Any:
    """The Typer parameter type of a declared option: `Annotated[type, typer.Option(...)]` (or Argument)."""
    def check(value: Any) -> Any:
        try:
            return option.check(value) if option.check else value
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None

    extra: Values = {"help": option.help, "callback": check if option.check else None}  # typer.Option's
    if option.argument:
        return Annotated[option.type, typer.Argument(**extra)]
    if option.minimum is not None:
        extra["min"] = option.minimum
    if option.metavar is not None:
        extra["metavar"] = option.metavar
    return Annotated[option.type, typer.Option(*(option.flags or (f"--{option.name.replace('_', '-')}",)), **extra)]


# The options the commands share, by name: each command's parameter is built from its declaration (annotation).
_SHARED = {option.name: option for option in SELECTION + PLACEMENT + RESULTS}
if TYPE_CHECKING:
    # The type checker sees each parameter's Python type (the declared Option's `type`); Typer, at run time,
    # the Annotated parameter built from that declaration.
    ServersArg = Optional[list[str]]
    ServersDirOpt = Path
    RuntimeOpt = str
    CpusOpt = float
    MemoryOpt = int
    ResultsParentOpt = Path
else:
    ServersArg = annotation(_SHARED["servers"])
    ServersDirOpt = annotation(_SHARED["servers_dir"])
    RuntimeOpt = annotation(_SHARED["runtime"])
    CpusOpt = annotation(_SHARED["cpus"])
    MemoryOpt = annotation(_SHARED["memory_mb"])
    ResultsParentOpt = annotation(_SHARED["results_dir"])
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable: one JSON document on stdout.")]


def print_json(document: object) -> None:
    """A command's --json output: plain stdout (no Rich wrapping or markup), one document."""
    print(json.dumps(document, indent=2, default=str))


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print an error line and return the Exit to raise (callers write `raise fail(...)`)."""
    console.print(f"[bold red]error:[/] {message}")
    return typer.Exit(code)


def one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:  # a sentence naming the file, not an exception's name
        return io_said(exc)
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def terminate_on_sigterm() -> None:
    """SIGTERM (CI timeouts, `kill`) takes the same path as Ctrl-C: record, then stop everything. And a Ctrl-C
    is never lost (_redeliver_lost_interrupts)."""
    def handler(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)
    atexit.register(processes.stop_all)
    sys.unraisablehook = _redeliver_lost_interrupts(sys.unraisablehook)


def _redeliver_lost_interrupts(previous: Callable[[Any], object]) -> Callable[[Any], object]:
    """A Ctrl-C whose KeyboardInterrupt is raised where Python can only print and drop it (an at-fork callback
    while a subprocess starts: logging's _releaseLock, seen in a docker run that then ran its 120 s to the end) is
    sent again, 50 ms later from another thread, so it lands where the main thread can raise it. Only a dropped
    one: the hook sees nothing of an interrupt that propagated."""
    def hook(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            while True:
                try:
                    threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)).start()
                    return
                except KeyboardInterrupt:
                    # On a loaded host the timer can fire before start() returns: the interrupt then lands here,
                    # inside the hook, where it would be dropped again. Send another.
                    continue
        previous(unraisable)
    return hook


def selected_servers(servers_dir: Path, names: Optional[list[str]], stacks_only: bool = False,
                     what_if: Optional[str] = None, twins: Optional[list[str]] = None,
                     first_run: bool = False) -> list[ServerSpec]:
    """The named servers (or all, or each stack once, or each SDK once; each with its --what-if twin, and the
    --twin A/A twins), after saying which manifests are broken and which servers are left out; exits on an unknown
    name."""
    discovery = discover(servers_dir)
    for error in discovery.errors:
        console.print(f"[bold red]broken manifest[/] {error}")
    try:
        chosen = select(discovery, names, stacks_only, first_run)
        if what_if is not None:
            chosen = what_if_twins(chosen, discovery, what_if)
        if twins:
            chosen, no_twin = aa_twins(chosen, discovery, twins)
            if no_twin:
                console.print(f"--twin: {', '.join(no_twin)} not measured in this run, so no A/A twin of "
                              f"{'it' if len(no_twin) == 1 else 'them'}")
    except SelectionError as exc:
        raise fail(str(exc)) from exc
    if not names:
        dropped = left_out(discovery, stacks_only, first_run)
        what_ifs = [spec.name for spec in dropped if spec.what_if]
        alternatives = [spec.name for spec in dropped if not spec.what_if]
        if what_ifs:
            console.print(f"each stack once ({'--first-run' if first_run else '--stacks-only'}): leaving out the "
                          f"what-if variants {', '.join(what_ifs)} (name them to measure them)")
        if alternatives:
            console.print(f"each SDK once (--first-run): leaving out the alternatives {', '.join(alternatives)} "
                          "(name them, or --stacks-only, to measure them)")
    return chosen


def measured_servers(values: Values) -> list[ServerSpec]:
    """What a measuring command measures: the servers given on its command line (--command, --stdio,
    --target, with --workload's calls), or else the named (or all) servers under servers/."""
    if values.get("base") or values.get("candidate"):  # mcpbench ci's two sides: two targets by another name
        if not (values.get("base") and values.get("candidate")):
            raise fail("give both --base and --candidate")
        if values.get("target") or values.get("command") or values.get("stdio") or values.get("url"):
            raise fail("--base and --candidate name both sides: leave out --target, --command, --stdio and --url")
        values = {**values, "target": [f"base={values['base']}", f"candidate={values['candidate']}"]}
    if values.get("command") or values.get("stdio") or values.get("target") or values.get("url"):
        if values.get("servers"):
            raise fail("name servers from servers/ or give --command, --stdio, --url or --target, not both")
        if values.get("runtime", "local") != "local":
            # docker and swarm run images built from a server directory's manifest; a command has none
            raise fail(f"a server given on the command line runs under the local runtime, not {values['runtime']} "
                       "(its images are built from servers/ directories)")
        try:
            return target_specs(values.get("workload"), values.get("command"), values.get("stdio"),
                                values.get("target"), values.get("env"), values.get("target_name"),
                                url=values.get("url"), headers=values.get("header"), ready=values.get("ready"),
                                transport=values.get("transport") or "http")
        except TargetError as exc:
            raise fail(str(exc)) from exc
    given = [flag for flag, name in (("--workload", "workload"), ("--env", "env"), ("--name", "target_name"),
                                     ("--header", "header"), ("--ready", "ready")) if values.get(name)]
    if given:
        raise fail(f"{', '.join(given)} go with --command, --stdio, --url or --target (the servers under servers/ "
                   "are measured with the lineup's workload)")
    return selected_servers(values["servers_dir"], values["servers"], values.get("stacks_only", False),
                            values.get("what_if"), values.get("twin"), values.get("first_run", False))
