"""What every `mcpbench` command module shares: the console, argument types, error exits, selection."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

from .manifest import ServerSpec, discover
from .selection import SelectionError, select

console = Console()

ServersArg = Annotated[Optional[list[str]], typer.Argument(help="Server names (default: all discovered).")]
ServersDirOpt = Annotated[Path, typer.Option("--servers-dir", help="Where server directories live.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable: one JSON document on stdout.")]
# The server's limits and the build step, as every measuring command takes them.
CpusOpt = Annotated[float, typer.Option(help="CPU cores for the server (scaled down if the machine is small).")]
MemoryOpt = Annotated[int, typer.Option(help="Memory limit for the server, MiB.")]
NoBuildOpt = Annotated[bool, typer.Option("--no-build", help="Use what is already built.")]
ResultsParentOpt = Annotated[Path, typer.Option(help="Parent of the run's results directory.")]


def _loadgen_name(value: str) -> str:
    from . import loadgen
    from .loadgen.k6 import available

    if value not in loadgen.GENERATORS:
        raise typer.BadParameter(f"{value!r}: choose from {', '.join(loadgen.GENERATORS)}")
    if value == "k6" and not available():
        from .loadgen.k6 import NOT_INSTALLED

        raise typer.BadParameter(NOT_INSTALLED)
    return value


# Where the load comes from, as every measuring command takes it.
LoadgenOpt = Annotated[str, typer.Option(
    "--loadgen", callback=_loadgen_name,
    help="The load generator: driver (benchmark/load-driver, every mode) or k6 (only one you installed: on PATH "
         "or K6=/path; stdio modes still use the driver).")]
LoadInstancesOpt = Annotated[int, typer.Option(
    "--load-instances", "--k6-instances", min=1,
    help="Split each HTTP load test across this many load generator processes (segments of VUs or rate).")]


def print_json(document: object) -> None:
    """A command's --json output: plain stdout (no Rich wrapping or markup), one document."""
    print(json.dumps(document, indent=2, default=str))


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print an error line and return the Exit to raise (callers write `raise fail(...)`)."""
    console.print(f"[bold red]error:[/] {message}")
    return typer.Exit(code)


def selected_servers(servers_dir: Path, names: list[str] | None) -> list[ServerSpec]:
    """The named servers (or all), after saying which manifests are broken; exits on an unknown name."""
    discovery = discover(servers_dir)
    for error in discovery.errors:
        console.print(f"[bold red]broken manifest[/] {error}")
    try:
        return select(discovery, names)
    except SelectionError as exc:
        raise fail(str(exc)) from exc
