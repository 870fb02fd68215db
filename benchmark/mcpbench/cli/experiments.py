"""A command for every registered experiment, built from its declared options (experiments/options.py): the
command's parameters are the experiment's Options, its body the same for all — select the servers, configure
the experiment (one line on a bad value), run it on the runner, let it conclude, exit as the run ended."""

from __future__ import annotations

import inspect
import sys
from contextlib import ExitStack
from importlib.metadata import entry_points
from pathlib import Path
from typing import IO, Any

import typer
from rich.console import Console

from mcpbench import experiments
from mcpbench.cli.options import (
    annotation,
    console,
    fail,
    log_console,
    measured_servers,
    one_line,
    terminate_on_sigterm,
)
from mcpbench.experiments import resume
from mcpbench.experiments.base import Experiment
from mcpbench.experiments.events import Events
from mcpbench.experiments.listeners import ConsoleListener, JsonLinesListener
from mcpbench.experiments.options import Option, Values
from mcpbench.experiments.runner import RunFailed, Runner

AFTER_RUN_ENTRY_POINT = "mcpbench.after_run"   # pyproject.toml [project.entry-points."mcpbench.after_run"]


def _parameter(option: Option) -> inspect.Parameter:
    return inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY, default=option.default,
                             annotation=annotation(option))


def run_experiment(cls: type[Experiment], values: Values) -> None:
    """Select, configure, drive, conclude; the exit code says how it ended (130 interrupted, 1 a server failed
    or the run could not go on, 2 a bad value)."""
    terminate_on_sigterm()
    if values.get("resume") is not None:
        try:
            values = resume.resumed_values(cls.options, values)
        except ValueError as exc:
            raise fail(str(exc)) from exc
    # With --json or --events -, progress goes to stderr and stdout holds only the document or the events.
    events_to = values.get("events")
    document_to_stdout = bool(cls.json_option and values.get(cls.json_option))
    if document_to_stdout and events_to == "-":
        raise fail("--events - and --json both write to stdout: give --events a file")
    to_stdout = document_to_stdout or events_to == "-"
    out = log_console(stderr=True) if to_stdout else console
    with ExitStack() as stack:
        events = Events(ConsoleListener(out))
        if events_to:
            stream = sys.stdout if events_to == "-" else stack.enter_context(_events_file(events_to))
            events.add(JsonLinesListener(stream))
        _run(cls, values, out, events)


def _events_file(path: str) -> IO[str]:
    """--events FILE, opened before anything runs: a path that cannot be written is one line, nothing measured."""
    try:
        return open(path, "w", encoding="utf-8", buffering=1)
    except OSError as exc:
        raise fail(f"--events {path}: {exc.strerror or exc}") from None


def _run(cls: type[Experiment], values: Values, out: Console, events: Events) -> None:
    specs = measured_servers(values) if cls.measures_servers else []
    try:
        experiment = cls(values, specs, out)
    except ValueError as exc:
        raise fail(str(exc)) from exc
    resumed = values.get("resume")
    runner = Runner(experiment, values["results_dir"], out, run_id=resumed.name if resumed else None,
                    resuming=resumed is not None, events=events)
    try:
        record = runner.run()
    except RunFailed as exc:
        code = None
        if runner.record is not None:  # a run that could not even begin has nothing to conclude
            experiment.conclude(runner)
            code = experiment.exit_code(runner)
        raise fail(str(exc), 1 if code is None else code) from exc
    except Exception as exc:  # before the run could record anything: one line, no traceback
        raise fail(one_line(exc), 1) from exc
    experiment.conclude(runner)
    run = record.run
    if run.status == "complete":
        _after_run(out, cls.name, record.directory)
    if run.servers:
        out.print(f"Run {run.run_id} {run.status}: " + ", ".join(f"{n} {s.status}" for n, s in run.servers.items()))
    for name, server in run.servers.items():
        if server.status == "unavailable":
            out.print(f"[yellow]{name} is unavailable on this machine:[/] {server.reason}")
    out.print(f"Results in {record.directory}")
    if run.status != "complete":
        raise typer.Exit(130)
    code = experiment.exit_code(runner)
    if code is not None:
        raise typer.Exit(code)
    if any(server.status not in ("ok", "unavailable") for server in run.servers.values()):
        raise typer.Exit(1)


def _after_run(out: Console, experiment: str, directory: Path) -> None:
    """What other packages do after a complete run (the `mcpbench.after_run` entry point: the report's pages of a
    run of servers given on the command line); the CLI never imports them."""
    for entry in entry_points(group=AFTER_RUN_ENTRY_POINT):
        entry.load()(out, experiment, directory)


def command_for(cls: type[Experiment]):
    """The Typer command function of an experiment: its signature is the experiment's options."""
    def command(**values: Any) -> None:
        run_experiment(cls, values)

    parameters = [_parameter(option) for option in cls.options]
    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in parameters}
    command.__doc__ = cls.help
    command.__name__ = cls.name
    return command


def register(app: typer.Typer) -> None:
    for name in experiments.names():
        cls = experiments.experiment_class(name)
        app.command(name, help=cls.help)(command_for(cls))
