"""The `mcpbench` command line: the experiments' commands (built from the experiments registry: verify, run,
capacity, soak, calibrate), the tools around them (list, build, serve, upgrade), the runtimes' own (images,
compose) and what other packages register under the `mcpbench.commands` entry point (the report's report and
compare)."""

from __future__ import annotations

import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from mcpbench import runtime as runtimes
from mcpbench.catalog.build import BUILD_WORKERS, build_api_service, build_each, build_server, local_build_key
from mcpbench.catalog.manifest import discover
from mcpbench.cli import docker as docker_commands
from mcpbench.cli import experiments as experiment_commands
from mcpbench.cli.options import (
    CpusOpt,
    JsonOpt,
    MemoryOpt,
    RuntimeOpt,
    ServersArg,
    ServersDirOpt,
    console,
    fail,
    one_line,
    print_json,
    selected_servers,
    terminate_on_sigterm,
)
from mcpbench.host import processes
from mcpbench.host.paths import RESULTS_DIR, SERVERS_DIR
from mcpbench.results.model import SERVER_LOG
from mcpbench.results.write import new_run_id

COMMANDS_ENTRY_POINT = "mcpbench.commands"   # pyproject.toml [project.entry-points."mcpbench.commands"]

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Reproducible performance benchmark for MCP servers.")
experiment_commands.register(app)


@app.command("list")
def list_servers(servers_dir: ServersDirOpt = SERVERS_DIR, as_json: JsonOpt = False) -> None:
    """Show every server discovered under servers/ (and any broken manifest)."""
    discovery = discover(servers_dir)
    if as_json:
        print_json({"servers": [spec.describe().model_dump(exclude_unset=True) for spec in discovery.servers],
                    "errors": [str(error) for error in discovery.errors]})
        if discovery.errors:
            raise typer.Exit(1)
        return
    table = Table(title=f"{len(discovery.servers)} servers in {servers_dir}")
    for column in ("name", "display name", "language", "runtime", "SDK", "variant or alternative of", "stdio"):
        table.add_column(column)
    for spec in discovery.servers:
        table.add_row(spec.name, spec.info.display_name, spec.info.language, spec.info.runtime,
                      f"{spec.info.sdk} {spec.info.sdk_version}",
                      f"{spec.variant_of} (what-if)" if spec.what_if
                      else f"{spec.alternative_to} (alternative)" if spec.alternative_to else spec.variant_of or "",
                      "yes" if spec.serves_stdio else "no")
    console.print(table)
    for error in discovery.errors:
        console.print(f"[bold red]broken manifest[/] {error}")
    if discovery.errors:
        raise typer.Exit(1)


@app.command()
def build(
    servers: ServersArg = None, servers_dir: ServersDirOpt = SERVERS_DIR,
    logs: Annotated[Path, typer.Option(help="Where the build logs go.")] = RESULTS_DIR / "_build-logs",
) -> None:
    """Build the API service and the servers with each manifest's build command."""
    terminate_on_sigterm()  # a SIGTERM kills the builds still running, which run in sessions of their own
    specs = selected_servers(servers_dir, servers)
    logs.mkdir(parents=True, exist_ok=True)
    failed = 0
    outcome = build_api_service(logs / "api-service.log")
    console.print(f"{'✓' if outcome.status == 'ok' else '✗'} api-service {outcome.status} in {outcome.seconds:.1f} s")
    failed += outcome.status != "ok"
    workers = min(BUILD_WORKERS, len({local_build_key(spec) for spec in specs}))
    console.print(f"building {len(specs)} servers, {workers} at a time")
    for spec, outcome in build_each(specs, lambda spec: build_server(spec, logs / f"{spec.name}.log")):
        mark = {"ok": "[green]✓[/]", "skipped": "[yellow]-[/]"}.get(outcome.status, "[red]✗[/]")
        console.print(f"{mark} {spec.name} {outcome.status} in {outcome.seconds:.1f} s"
                      + (f": {outcome.reason}" if outcome.reason else ""))
        failed += outcome.status == "failed"
    if failed:
        raise typer.Exit(1)


@app.command()
def upgrade(
    results: Annotated[list[Path], typer.Argument(help="Results directories to rewrite in the current schema.",
                                                  show_default=False)],
) -> None:
    """Rewrite results directories in the current schema, every figure recomputed from the raw files by
    today's analysis (what the suite alone knew, a dead server or infrastructure, is kept)."""
    from mcpbench.analysis.recompute import upgrade_results
    from mcpbench.results.model import ResultsError

    for directory in results:
        try:
            counts = upgrade_results(directory)
        except ResultsError as exc:
            raise fail(str(exc), 1) from exc
        console.print(f"{directory}: {counts['measurements']} measurements recomputed, "
                      f"{counts['summaries_only']} upgraded only (no raw files), {counts['documents']} documents")


@app.command()
def serve(
    server: Annotated[str, typer.Argument(help="The server to start.", show_default=False)],
    servers_dir: ServersDirOpt = SERVERS_DIR,
    runtime: RuntimeOpt = runtimes.DEFAULT,
    cpus: CpusOpt = 2.0,
    memory_mb: MemoryOpt = 2048,
    results_dir: Annotated[Path, typer.Option(help="Where the logs go.")] = RESULTS_DIR,
) -> None:
    """Start Redis, the API service and one server under its limits, print the URL, keep them up until
    Ctrl-C: for running your own client or k6 script against a reference server (TFB's debug mode)."""
    import time as _time

    from mcpbench.measure.bench import Bench

    terminate_on_sigterm()
    spec = selected_servers(servers_dir, [server])[0]
    profile = runtimes.runtime_class(runtime).resource_profile(cpus, memory_mb)
    out = results_dir / f"{new_run_id(runtime)}-serve"
    try:
        with Bench(runtime, profile, out) as bench:
            infra = bench.start_infra()
            bench.reset()
            env = bench.runtime.server_environment(spec, infra)
            with bench.server(spec, out / SERVER_LOG) as running:
                console.print(f"[bold]{spec.name}[/] ready in {running.startup_s:.2f} s at [bold]{running.url}[/]")
                console.print(f"  Redis {infra.redis_url}, API service {infra.api_url}; "
                              f"server log {out / 'server.log'}")
                console.print(f"  limits: {profile.cpus:g} CPU, {profile.memory_mb} MiB"
                              + (f", CPUs {profile.cpuset}" if profile.cpuset else "")
                              + ("" if running.limits_applied else " [red](not applied)[/]"))
                console.print("  environment: " + " ".join(
                    f"{k}={env[k]}" for k in ("REDIS_URL", "API_SERVICE_URL", "CPU_LIMIT", "MEMORY_LIMIT_MB")))
                console.print("Ctrl-C stops everything.")
                while running.alive():
                    _time.sleep(0.5)
                console.print(f"[red]{spec.name} exited:[/]\n{running.log_tail()}")
        raise typer.Exit(1)
    except KeyboardInterrupt:
        console.print("stopping")
    except typer.Exit:
        raise
    except Exception as exc:  # one line, no traceback
        raise fail(one_line(exc), 1) from exc


def _register_plugin_commands() -> None:
    """Commands other packages register under the `mcpbench.commands` entry point (the report's `report` and
    `compare`): the orchestrator never imports them (pyproject.toml's import contract)."""
    for entry in entry_points(group=COMMANDS_ENTRY_POINT):
        entry.load()(app)


_register_plugin_commands()
docker_commands.register(app)  # the docker runtime's own: `mcpbench images …`, `mcpbench compose …`


def main() -> None:
    """The `mcpbench` entry point: whatever a command did not catch is one line, not a traceback (the
    traceback goes to a file for whoever debugs it)."""
    try:
        app()
    except Exception as exc:  # the last line of defence, by design
        import tempfile
        import traceback

        with tempfile.NamedTemporaryFile("w", prefix="mcpbench-error-", suffix=".log", delete=False) as log:
            log.write(traceback.format_exc())
        console.print(f"[bold red]error:[/] {one_line(exc)} (traceback in {log.name})")
        sys.exit(1)
    finally:
        processes.stop_all()


if __name__ == "__main__":
    main()
