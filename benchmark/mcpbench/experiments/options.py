"""The options experiments take, declared once and shared in groups (asv's `common_args`): an experiment
lists the groups it takes and declares only what is its own. The CLI turns each into a command parameter
(cli/experiments.py); the values come back to `Experiment.configure` as one dict, parsed there by the
helpers below.

An option here is plain data, not a Typer object, so an experiment is a module that knows nothing of the
command line and a test can build one from a dict."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Optional, overload

from mcpbench import loadgen
from mcpbench import runtime as runtimes
from mcpbench.host.paths import RESULTS_DIR, SERVERS_DIR
from mcpbench.host.profile import ResourceProfile
from mcpbench.loads import KINDS, MODES, Mode

# A command's option values by name (Option.name): what the CLI parsed, what an experiment configures itself from,
# what run.json's config.options keeps (experiments/resume.py).
Values = dict[str, Any]


@dataclass(frozen=True)
class Option:
    """One command-line parameter: `--name` (underscores as dashes) unless `flags` says otherwise."""

    name: str                      # the key in the values dict
    type: Any                      # str, int, float, bool, Path, Optional[...], Optional[list[str]] (an argument)
    default: Any
    help: str
    flags: tuple[str, ...] = ()    # e.g. ("--loadgen",), ("--shuffle/--no-shuffle",), an alias
    argument: bool = False         # positional (the server names)
    check: Callable[[Any], Any] | None = None  # raises ValueError with the sentence to show; returns the value
    minimum: int | float | None = None
    metavar: str | None = None     # how the help names its value (a repeatable option's one item)

    def but(self, **changes: Any) -> Option:
        """The same option with another default or help (an experiment's own reading of a shared one)."""
        return replace(self, **changes)


def _runtime(value: str) -> str:
    return runtimes.check(value)


def _generator(value: str) -> str:
    if value not in loadgen.GENERATORS:
        raise ValueError(f"{value!r}: choose from {', '.join(loadgen.GENERATORS)}")
    why = loadgen.GENERATORS[value].unavailable()
    if why:
        raise ValueError(why)
    return value


# -- groups -----------------------------------------------------------------------------------------------------
SELECTION = (
    Option("servers", Optional[list[str]], None, "Server names (default: all discovered).", argument=True),
    Option("servers_dir", Path, SERVERS_DIR, "Where server directories live.", ("--servers-dir",)),
    Option("stacks_only", bool, False, "Without server names: each stack once, leaving out the variants that are "
           "a what-if of another server (a v2-parity worker count, an end-of-life runtime; `mcpbench list` "
           "marks them).", ("--stacks-only",)),
    Option("first_run", bool, False, "Without server names: each SDK once, the first run's lineup (scripts/bench.sh): "
           "the stacks of --stacks-only less the alternatives, servers whose manifest says `alternative_to` (the "
           "same SDK on another framework, runtime or layer; `mcpbench list` marks them).", ("--first-run",)),
    Option("what_if", Optional[str], None, "LABEL:KEY=VALUE: each server also as NAME-LABEL, started with KEY=VALUE "
           "in its environment, in the same rounds; the report pairs the two round by round (e.g. "
           "unguarded:ALLOWED_HOSTS=* for DNS-rebinding protection off). Local runtime only.", ("--what-if",)),
    Option("twin", Optional[list[str]], None, "SERVER: also measure SERVER as SERVER-twin, the same server under a "
           "second name in the same rounds (an A/A twin: a setting no server reads); the report checks that the "
           "two are never separated (repeatable). Local runtime only.", ("--twin",), metavar="SERVER"),
)
# Your own MCP server instead of the lineup's (catalog/target.py): measured with a workload file's calls.
TARGET = (
    Option("command", Optional[str], None, "An MCP server of your own, over Streamable HTTP at /mcp: the command "
           "that starts it ({port} in it, and PORT in its environment, is a free port), measured with --workload's "
           "calls instead of servers from servers/.", ("--command",), metavar="'CMD {port}'"),
    Option("stdio", Optional[str], None, "An MCP server of your own over stdio: the command the load driver starts "
           "(measured over stdio unless --mode says more).", ("--stdio",), metavar="'CMD'"),
    Option("url", Optional[str], None, "An MCP server already running, at this Streamable HTTP endpoint: nothing is "
           "started, limited or read of it (no server CPU or memory).", ("--url",), metavar="URL"),
    Option("header", Optional[list[str]], None, "'Name: value' sent with every request to a --url, --command or "
           "--target server (repeatable: Authorization…).", ("--header",), metavar="'NAME: VALUE'"),
    Option("target", Optional[list[str]], None, "NAME=COMMAND or NAME=URL: one of several configurations of a "
           "server, each started as --command is (or reached as --url is) and measured in the same rounds "
           "(repeatable: an A/B).", ("--target",), metavar="NAME=COMMAND"),
    Option("workload", Optional[Path], None, "The calls a --command, --stdio or --target server is measured with: "
           "a workload file (docs/workload-file.md).", ("--workload",)),
    Option("env", Optional[list[str]], None, "KEY=VALUE in the environment of a --command, --stdio or --target "
           "server (repeatable).", ("--env",), metavar="KEY=VALUE"),
    Option("target_name", Optional[str], None, "The name of a --command or --stdio server in the results "
           "(default: its program's).", ("--name",)),
    Option("ready", Optional[str], None, "A command ({port} put in) that must succeed before a --command or --target "
           "server counts as started (polled; e.g. 'curl -sf http://127.0.0.1:{port}/health'), before its MCP "
           "initialize is.", ("--ready",), metavar="'CMD'"),
)
PLACEMENT = (
    Option("runtime", str, runtimes.DEFAULT, f"Where the servers run: {', '.join(runtimes.names())}.",
           check=_runtime),
    Option("cpus", float, 2.0, "CPU cores for the server (scaled down if the machine is small)."),
    Option("memory_mb", int, 2048, "Memory limit for the server, MiB."),
    Option("registry", Optional[str], None, "--runtime swarm: push the images to this registry (HOST:PORT/PATH) "
           "and deploy them by digest (default: the swarm file's registry, else docker save/load to each node).",
           ("--registry",)),
)
BUILDING = (Option("no_build", bool, False, "Use what is already built.", ("--no-build",)),)
CALIBRATION = (Option("no_calibrate", bool, False, "Skip the harness limits measured before the first round "
                      "(every measurement is then limit-unknown).", ("--no-calibrate",)),)
LOAD_SOURCE = (
    Option("load_generator", str, loadgen.DEFAULT,
           "The load generator: driver (benchmark/load-driver, every mode) or k6 (only one you installed: on PATH "
           "or K6=/path; stdio modes still use the load driver).", ("--loadgen",), check=_generator),
    Option("load_instances", int, 1, "Split each HTTP load test across this many load generator processes "
           "(segments of VUs or rate).", ("--load-instances", "--k6-instances"), minimum=1),
)
# What load: the same words in every experiment. --vus is the closed model's VUs (a list sweeps them); an
# open-model load pre-allocates the largest of them (the load driver may grow to 4x).
DEFAULT_VUS = "50"
LOAD = (
    Option("mode", Optional[str], None, f"Session mode(s), comma-separated: {', '.join(MODES)} (default: session, "
           "or the `session` of the workload file of the servers given on the command line)."),
    Option("vus", str, DEFAULT_VUS, "VUs; a list (1,10,50,100,200) is a concurrency sweep; an open-model load "
           "pre-allocates the largest."),
)
QUICK = (Option("quick", bool, False, "Smoke profile: short windows.", ("--quick",)),)
# Where the run's results go, and where its events go besides the console (docs/events.md).
RESULTS = (Option("results_dir", Path, RESULTS_DIR, "Parent of the run's results directory."),
           Option("events", Optional[str], None, "Also write the run's events as JSON lines to FILE (`-`: stdout, "
                  "the console then on stderr); docs/events.md.", ("--events",), metavar="FILE|-"))
# How a run is watched, not what it measures: not recorded in run.json, and free to change on --resume.
WATCHING = ("events",)
# The options every experiment that measures servers takes.
MEASURING = SELECTION + TARGET + PLACEMENT + BUILDING + LOAD_SOURCE + RESULTS


# -- parsing the values -----------------------------------------------------------------------------------------
def csv(value: str | None, kind: type, option: str) -> tuple:
    """'1,10,50' as a tuple of `kind`; ValueError naming the option."""
    if value is None:
        return ()
    try:
        return tuple(kind(part) for part in value.split(",") if part.strip())
    except ValueError:
        raise ValueError(f"{option} takes a comma-separated list, got {value!r}") from None


_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*(s|m|min|h)?\s*$")


@overload
def duration(value: str | float, option: str = ...) -> float: ...
@overload
def duration(value: None, option: str = ...) -> None: ...
def duration(value: str | float | None, option: str = "--duration") -> float | None:
    """'300', '90s', '30m' or '1.5h' as seconds, positive (None stays None): one reading of --duration in
    every experiment."""
    if value is None:
        return None
    match = _DURATION.match(str(value))
    if not match:
        raise ValueError(f"{option} {value!r}: give seconds or a number with s, m or h (e.g. 300, 30m)")
    seconds = float(match.group(1)) * {None: 1, "s": 1, "m": 60, "min": 60, "h": 3600}[match.group(2)]
    if seconds <= 0:
        raise ValueError(f"{option} {value!r}: must be longer than 0 s")
    return seconds


def kind_name(value: str) -> str:
    if value not in KINDS:
        raise ValueError(f"--load {value!r}: choose from {', '.join(KINDS)}")
    return value


def resource_profile_of(values: Values) -> ResourceProfile:
    """The server's limits from the PLACEMENT options, as the chosen runtime places them."""
    return runtimes.runtime_class(values.get("runtime") or runtimes.DEFAULT).resource_profile(
        values.get("cpus", 2.0), values.get("memory_mb", 2048))


def modes_of(values: Values, specs: list) -> tuple[Mode, ...]:
    """--mode's modes; without it, stdio for servers that serve nothing else, the session pattern the servers'
    workload file names (docs/workload-file.md), else the v2 study's `session`. (RunConfig checks each mode.)"""
    if values.get("mode"):
        modes = csv(values["mode"], str, "--mode")
        workloads = [spec.workload.spec for spec in specs if spec.workload is not None]
        if any(w.abandon for w in workloads) and set(modes) - {"session", "stdio"}:
            raise ValueError(f"--mode {values['mode']}: the workload abandons its sessions (abandon = true), which "
                             "session mode opens one per call (stdio: a client that stops reading); choose --mode "
                             "session or stdio")
        if any(w.drop_stream for w in workloads) and "stdio" in modes:
            raise ValueError(f"--mode {values['mode']}: the workload drops HTTP streams (drop_stream = true), which "
                             "stdio has none of")
        return modes
    if specs and not any(spec.serves_http for spec in specs):
        return ("stdio",)  # servers given as stdio commands alone (--stdio) speak nothing else
    named = {spec.workload.spec.session for spec in specs if spec.workload is not None and spec.workload.spec.session}
    return (named.pop(),) if len(named) == 1 else ("session",)
