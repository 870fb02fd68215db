"""The `mcpbench` command line: list, build, verify, run, calibrate, report, compare."""

from __future__ import annotations

import atexit
import signal
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from . import processes
from .build import build_api_service, build_server
from .docker_cli import register as register_docker_commands
from .docker_engine import DockerError
from .config import FULL_TIMING, MODES, QUICK_TIMING, Load, RunConfig, Timing, resource_profile
from .manifest import discover
from .paths import RESULTS_DIR, SERVERS_DIR
from .results import new_run_id
from .cli_common import ServersArg, ServersDirOpt, console, fail, selected_servers

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Reproducible performance benchmark for MCP servers.")

RuntimeOpt = Annotated[str, typer.Option("--runtime", help="local (processes in cgroups) or docker.")]


def _terminate_on_sigterm() -> None:
    # SIGTERM (CI timeouts, `kill`) takes the same path as Ctrl-C: record, then stop everything.
    def handler(signum, frame):  # noqa: ARG001
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)
    atexit.register(processes.stop_all)




def _csv(value: str, kind: type, what: str) -> tuple:
    try:
        return tuple(kind(part) for part in value.split(",") if part.strip())
    except ValueError:
        raise fail(f"{what} takes a comma-separated list, got {value!r}") from None


@app.command("list")
def list_servers(servers_dir: ServersDirOpt = SERVERS_DIR) -> None:
    """Show every server discovered under servers/ (and any broken manifest)."""
    discovery = discover(servers_dir)
    table = Table(title=f"{len(discovery.servers)} servers in {servers_dir}")
    for column in ("name", "display name", "language", "runtime", "SDK", "variant of"):
        table.add_column(column)
    for spec in discovery.servers:
        table.add_row(spec.name, spec.info.display_name, spec.info.language, spec.info.runtime,
                      f"{spec.info.sdk} {spec.info.sdk_version}", spec.variant_of or "")
    console.print(table)
    for error in discovery.errors:
        console.print(f"[bold red]broken manifest[/] {error}")
    if discovery.errors:
        raise typer.Exit(1)


@app.command()
def build(servers: ServersArg = None, servers_dir: ServersDirOpt = SERVERS_DIR) -> None:
    """Build the API service and the servers with each manifest's build command."""
    specs = selected_servers(servers_dir, servers)
    logs = RESULTS_DIR / "_build-logs"
    logs.mkdir(parents=True, exist_ok=True)
    failed = 0
    outcome = build_api_service(logs / "api-service.log")
    console.print(f"{'✓' if outcome.status == 'ok' else '✗'} api-service {outcome.status} in {outcome.seconds:.1f} s")
    failed += outcome.status != "ok"
    built: dict[tuple, object] = {}
    for spec in specs:
        key = (spec.directory, spec.build_commands)
        outcome = built.get(key) or build_server(spec, logs / f"{spec.name}.log")
        built[key] = outcome
        mark = {"ok": "[green]✓[/]", "skipped": "[yellow]-[/]"}.get(outcome.status, "[red]✗[/]")
        console.print(f"{mark} {spec.name} {outcome.status} in {outcome.seconds:.1f} s"
                      + (f": {outcome.reason}" if outcome.reason else ""))
        failed += outcome.status == "failed"
    if failed:
        raise typer.Exit(1)


def _profile(cpus: float, memory_mb: int):
    return resource_profile(cpus, memory_mb)


@app.command("verify")
def verify_command(
    servers: ServersArg = None,
    servers_dir: ServersDirOpt = SERVERS_DIR,
    runtime: RuntimeOpt = "local",
    no_build: Annotated[bool, typer.Option("--no-build", help="Use what is already built.")] = False,
    results_dir: Annotated[Path, typer.Option(help="Where the verify record goes.")] = RESULTS_DIR,
) -> None:
    """Start infra and each server, and check protocol, the three tools and bad input. Exit 1 on any fail."""
    from .verify_run import verify_servers

    _terminate_on_sigterm()
    specs = selected_servers(servers_dir, servers)
    profile = _profile(2.0, 2048)
    try:
        ok = verify_servers(specs, runtime, profile, not no_build, results_dir / f"{new_run_id(runtime)}-verify",
                            console)
    except DockerError as exc:  # no engine, no compose, no image: a clear message, not a traceback
        raise fail(str(exc), 1) from exc
    if not ok:
        raise typer.Exit(1)


@app.command()
def run(
    servers: ServersArg = None,
    servers_dir: ServersDirOpt = SERVERS_DIR,
    runtime: RuntimeOpt = "local",
    runs: Annotated[int, typer.Option(help="Measurements per server and load (run-to-run statistics).")] = 1,
    shuffle: Annotated[bool, typer.Option(help="Shuffle the server order in every round.")] = False,
    mode: Annotated[str, typer.Option(help=f"Session mode(s), comma-separated: {', '.join(MODES)}.")] = "session",
    vus: Annotated[str, typer.Option(help="VUs; a list (1,10,50,100,200) is a concurrency sweep.")] = "50",
    duration: Annotated[Optional[float], typer.Option(help="Measured seconds (default 300; quick 15).")] = None,
    warmup: Annotated[Optional[float], typer.Option(help="Warm-up seconds, excluded (default 60; quick 5).")] = None,
    ramp_up: Annotated[Optional[float], typer.Option(help="Ramp-up seconds, excluded (default 15).")] = None,
    ramp_down: Annotated[Optional[float], typer.Option(help="Ramp-down seconds, excluded (default 10).")] = None,
    think: Annotated[Optional[float], typer.Option(help="Think time per iteration (default 0.05 s).")] = None,
    quick: Annotated[bool, typer.Option("--quick", help="Smoke profile: tens of seconds per server.")] = False,
    open_fractions: Annotated[Optional[str], typer.Option(
        "--open", help="Open model too: arrival-rate runs at these fractions of the measured max, e.g. 0.5,0.8.")] = None,
    cpus: Annotated[float, typer.Option(help="CPU cores for the server (scaled down if the machine is small).")] = 2.0,
    memory_mb: Annotated[int, typer.Option(help="Memory limit for the server, MiB.")] = 2048,
    no_build: Annotated[bool, typer.Option("--no-build", help="Use what is already built.")] = False,
    results_dir: Annotated[Path, typer.Option(help="Parent of the run's results directory.")] = RESULTS_DIR,
) -> None:
    """Measure servers: for each, reset Redis, start, verify, warm up, measure, stop, record."""
    from .suite import Suite

    _terminate_on_sigterm()
    specs = selected_servers(servers_dir, servers)
    base = QUICK_TIMING if quick else FULL_TIMING
    try:
        timing = Timing(
            ramp_up_s=base.ramp_up_s if ramp_up is None else ramp_up,
            warmup_s=base.warmup_s if warmup is None else warmup,
            duration_s=base.duration_s if duration is None else duration,
            ramp_down_s=base.ramp_down_s if ramp_down is None else ramp_down,
            think_time_s=base.think_time_s if think is None else think,
        )
        config = RunConfig(
            runtime=runtime, servers=tuple(s.name for s in specs), modes=_csv(mode, str, "--mode"),
            vus=_csv(vus, int, "--vus"), runs=runs, shuffle=shuffle, timing=timing,
            profile=_profile(cpus, memory_mb),
            rate_fractions=_csv(open_fractions, float, "--open") if open_fractions else (),
            build=not no_build,
        )
    except ValueError as exc:
        raise fail(str(exc)) from exc
    try:
        record = Suite(config, specs, results_dir, console).run()
    except DockerError as exc:  # no engine, no compose, no image: a clear message, not a traceback
        raise fail(str(exc), 1) from exc
    statuses = {name: s["status"] for name, s in record.data["servers"].items()}
    console.print(f"Run {record.data['run_id']} {record.data['status']}: "
                  + ", ".join(f"{n} {s}" for n, s in statuses.items()))
    console.print(f"Results in {record.directory}")
    if record.data["status"] != "complete":
        raise typer.Exit(130)
    if any(status != "ok" for status in statuses.values()):
        raise typer.Exit(1)


@app.command()
def calibrate(
    mode: Annotated[str, typer.Option(help="Session mode(s), comma-separated.")] = "session,stateless",
    vus: Annotated[int, typer.Option(help="VUs.")] = 50,
    quick: Annotated[bool, typer.Option("--quick", help="Smoke profile.")] = False,
    duration: Annotated[Optional[float], typer.Option(help="Measured seconds.")] = 60,
    results_dir: Annotated[Path, typer.Option(help="Parent of the calibration's results directory.")] = RESULTS_DIR,
) -> None:
    """Measure the harness's own ceiling: k6 + infra against a trivial MCP endpoint with no I/O."""
    from .calibrate import calibrate as run_calibration

    _terminate_on_sigterm()
    base = QUICK_TIMING if quick else Timing(ramp_up_s=5, warmup_s=15, duration_s=duration or 60, ramp_down_s=2)
    out = results_dir / f"{new_run_id('local')}-calibrate"
    (out / "_infra").mkdir(parents=True)
    outcome = build_api_service(out / "_infra" / "api-service-build.log")
    if outcome.status != "ok":
        raise fail(f"the API service did not build: {outcome.reason}")
    loads = [Load(m, vus) for m in _csv(mode, str, "--mode")]
    try:
        run_calibration(out, loads, base, _profile(2.0, 2048), console)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    console.print(f"Calibration in {out}")


def _register_report_commands() -> None:
    try:
        from mcpbench_report.commands import compare, report
    except ImportError:  # the report package is optional at import time; its own tests cover it
        return
    app.command("report")(report)
    app.command("compare")(compare)


_register_report_commands()
register_docker_commands(app)  # `mcpbench images …`, `mcpbench compose …` (docker_cli.py)


if __name__ == "__main__":
    sys.exit(app())
