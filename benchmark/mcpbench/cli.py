"""The `mcpbench` command line: list, build, verify, run, calibrate, report, compare."""

from __future__ import annotations

import atexit
import signal
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from . import loadgen, processes, runtime as runtimes
from .build import build_api_service, build_server
from .config import FULL_ROUNDS, FULL_TIMING, MODES, QUICK_TIMING, RunConfig, Timing, resource_profile
from .scenarios import MODE_TRANSPORT
from .capacity import DEFAULT_SLO
from .scenarios import ClosedLoad
from .manifest import discover
from .paths import RESULTS_DIR, SERVERS_DIR
from .results import new_run_id
from .cli_common import (CpusOpt, JsonOpt, LoadgenOpt, LoadInstancesOpt, MemoryOpt, NoBuildOpt, ResultsParentOpt,
                         ServersArg, ServersDirOpt, console, fail, print_json, selected_servers)

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Reproducible performance benchmark for MCP servers.")

def _runtime_name(value: str) -> str:
    try:
        return runtimes.check(value)
    except runtimes.UnknownRuntime as exc:
        raise typer.BadParameter(str(exc)) from None


RuntimeOpt = Annotated[str, typer.Option("--runtime", callback=_runtime_name,
                                         help=f"Where the servers run: {', '.join(runtimes.names())}.")]


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
def list_servers(servers_dir: ServersDirOpt = SERVERS_DIR, as_json: JsonOpt = False) -> None:
    """Show every server discovered under servers/ (and any broken manifest)."""
    discovery = discover(servers_dir)
    if as_json:
        print_json({"servers": [spec.describe() for spec in discovery.servers],
                    "errors": [str(error) for error in discovery.errors]})
        if discovery.errors:
            raise typer.Exit(1)
        return
    table = Table(title=f"{len(discovery.servers)} servers in {servers_dir}")
    for column in ("name", "display name", "language", "runtime", "SDK", "variant of", "stdio"):
        table.add_column(column)
    for spec in discovery.servers:
        table.add_row(spec.name, spec.info.display_name, spec.info.language, spec.info.runtime,
                      f"{spec.info.sdk} {spec.info.sdk_version}", spec.variant_of or "",
                      "yes" if spec.serves_stdio else "no")
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


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _warmup(value: str | None, base: Timing) -> tuple[float, float | None]:
    """--warmup auto (steady-state detection between the profile's bounds) or a fixed number of seconds."""
    if value is None or value == "auto":
        return base.warmup_s, base.warmup_cap_s
    try:
        seconds = float(value)
    except ValueError:
        raise fail(f"--warmup takes 'auto' or seconds, got {value!r}") from None
    return seconds, None


@app.command("verify")
def verify_command(
    servers: ServersArg = None,
    servers_dir: ServersDirOpt = SERVERS_DIR,
    runtime: RuntimeOpt = runtimes.DEFAULT,
    no_build: NoBuildOpt = False,
    results_dir: Annotated[Path, typer.Option(help="Where the verify record goes.")] = RESULTS_DIR,
    as_json: JsonOpt = False,
) -> None:
    """Start infra and each server, and check protocol, the three tools and bad input. Exit 1 on any fail."""
    from rich.console import Console

    from .verify_run import verify_servers

    _terminate_on_sigterm()
    specs = selected_servers(servers_dir, servers)
    profile = resource_profile(2.0, 2048)
    try:
        # With --json, progress goes to stderr and stdout holds only the document.
        ok, verdicts = verify_servers(specs, runtime, profile, not no_build,
                                      results_dir / f"{new_run_id(runtime)}-verify",
                                      Console(stderr=True) if as_json else console)
    except Exception as exc:  # noqa: BLE001 - no engine, redis-server missing, a port in use: one line
        raise fail(_one_line(exc), 1) from exc
    if as_json:
        print_json({"ok": ok, "servers": verdicts})
    if not ok:
        raise typer.Exit(1)


@app.command()
def run(
    servers: ServersArg = None,
    servers_dir: ServersDirOpt = SERVERS_DIR,
    runtime: RuntimeOpt = runtimes.DEFAULT,
    runs: Annotated[Optional[int], typer.Option(
        help=f"Rounds: each measures every server once, interleaved (default: quick 1, full {FULL_ROUNDS}).")] = None,
    shuffle: Annotated[bool, typer.Option("--shuffle/--no-shuffle",
                                          help="A new random server order in every round.")] = True,
    mode: Annotated[str, typer.Option(help=f"Session mode(s), comma-separated: {', '.join(MODES)}.")] = "session",
    transport: Annotated[str, typer.Option(
        help="http, or stdio: the servers' [stdio] commands driven by the load driver (same as --mode stdio; "
             "--mode stateless,stdio measures both side by side).")] = "http",
    vus: Annotated[str, typer.Option(help="VUs; a list (1,10,50,100,200) is a concurrency sweep.")] = "50",
    duration: Annotated[Optional[float], typer.Option(help="Measured seconds (default 300; quick 15).")] = None,
    warmup: Annotated[Optional[str], typer.Option(
        help="'auto' (default): warm up until throughput is steady, full 30-180 s, quick 10-60 s; or fixed seconds.")] = None,
    ramp_up: Annotated[Optional[float], typer.Option(help="Ramp-up seconds, excluded (default 15).")] = None,
    ramp_down: Annotated[Optional[float], typer.Option(help="Ramp-down seconds, excluded (default 10).")] = None,
    think: Annotated[Optional[float], typer.Option(help="Think time per iteration (default 0.05 s).")] = None,
    quick: Annotated[bool, typer.Option("--quick", help="Smoke profile: tens of seconds per server.")] = False,
    open_fractions: Annotated[Optional[str], typer.Option(
        "--open", help="Open model too: arrival-rate runs at these fractions of the measured max, e.g. 0.5,0.8.")] = None,
    cpus: CpusOpt = 2.0,
    memory_mb: MemoryOpt = 2048,
    no_build: NoBuildOpt = False,
    no_calibrate: Annotated[bool, typer.Option(
        "--no-calibrate", help="Skip the harness limits measured before the first round (every measurement is then limit-unknown).")] = False,
    load_generator: LoadgenOpt = loadgen.DEFAULT,
    load_instances: LoadInstancesOpt = 1,
    results_dir: ResultsParentOpt = RESULTS_DIR,
) -> None:
    """Measure servers in interleaved rounds: for each, reset Redis, start, verify, warm up, measure, stop, record."""
    from .suite import Suite, SuiteFailed

    _terminate_on_sigterm()
    specs = selected_servers(servers_dir, servers)
    base = QUICK_TIMING if quick else FULL_TIMING
    warmup_s, warmup_cap_s = _warmup(warmup, base)
    try:
        timing = Timing(
            ramp_up_s=base.ramp_up_s if ramp_up is None else ramp_up,
            warmup_s=warmup_s, warmup_cap_s=warmup_cap_s,
            duration_s=base.duration_s if duration is None else duration,
            ramp_down_s=base.ramp_down_s if ramp_down is None else ramp_down,
            think_time_s=base.think_time_s if think is None else think,
        )
        if transport not in ("http", "stdio"):
            raise ValueError(f"--transport {transport!r}: choose http or stdio")
        modes = ("stdio",) if transport == "stdio" else _csv(mode, str, "--mode")
        config = RunConfig(
            runtime=runtime, servers=tuple(s.name for s in specs), modes=modes,
            vus=_csv(vus, int, "--vus"), runs=runs or (1 if quick else FULL_ROUNDS), shuffle=shuffle, timing=timing,
            profile=resource_profile(cpus, memory_mb),
            rate_fractions=_csv(open_fractions, float, "--open") if open_fractions else (),
            build=not no_build, calibrate=not no_calibrate, load_generator=load_generator,
            load_instances=load_instances,
        )
    except ValueError as exc:
        raise fail(str(exc)) from exc
    try:
        record = Suite(config, specs, results_dir, console).run()
    except SuiteFailed as exc:
        raise fail(str(exc), 1) from exc
    except Exception as exc:  # noqa: BLE001 - before the suite could record anything: one line, no traceback
        raise fail(_one_line(exc), 1) from exc
    statuses = {name: s["status"] for name, s in record.data["servers"].items()}
    console.print(f"Run {record.data['run_id']} {record.data['status']}: "
                  + ", ".join(f"{n} {s}" for n, s in statuses.items()))
    for name, server in record.data["servers"].items():
        if server["status"] == "unavailable":
            console.print(f"[yellow]{name} is unavailable on this machine:[/] {server['reason']}")
    _exit_for(record)


@app.command()
def capacity(
    servers: ServersArg = None,
    servers_dir: ServersDirOpt = SERVERS_DIR,
    runtime: RuntimeOpt = runtimes.DEFAULT,
    slo: Annotated[str, typer.Option(help="Criteria every step must meet: p50/p90/p95/p99/p999<N ms, errors<N %.")]
    = DEFAULT_SLO,
    start_rate: Annotated[float, typer.Option(help="The first step's arrival rate, tool calls/s.")] = 50.0,
    factor: Annotated[float, typer.Option(help="Each step's rate is the one before times this.")] = 1.25,
    max_steps: Annotated[int, typer.Option(help="The most steps per ladder.")] = 20,
    step_duration: Annotated[Optional[float], typer.Option(help="Seconds measured per step (quick 10, full 30).")]
    = None,
    target_rate: Annotated[Optional[float], typer.Option(
        help="Size a deployment: instances of each stack for this many tool calls/s.")] = None,
    mode: Annotated[str, typer.Option(help=f"Session mode(s), comma-separated: {', '.join(MODES)}.")] = "session",
    vus: Annotated[int, typer.Option(help="VUs the load generator pre-allocates (it may grow to 4x).")] = 50,
    runs: Annotated[int, typer.Option(help="Rounds: a ladder per server each, in a new order.")] = 1,
    quick: Annotated[bool, typer.Option("--quick", help="Short steps (10 s, 10 s warm-up before the first).")] = False,
    cpus: CpusOpt = 2.0,
    memory_mb: MemoryOpt = 2048,
    no_build: NoBuildOpt = False,
    no_calibrate: Annotated[bool, typer.Option(
        "--no-calibrate", help="Skip the harness calibration (then no step is stopped as harness-bound).")] = False,
    load_generator: LoadgenOpt = loadgen.DEFAULT,
    load_instances: LoadInstancesOpt = 1,
    results_dir: ResultsParentOpt = RESULTS_DIR,
) -> None:
    """Capacity under an SLO: an open-model step test per server, raised until the SLO breaks, the server
    saturates or the offered rate nears the harness's open-model capacity (a lower bound then); the highest passing step is its capacity."""
    from .capacity import FULL_FIRST_WARMUP_S, FULL_STEP, QUICK_FIRST_WARMUP_S, QUICK_STEP, Plan, SloError, parse_slo
    from .capacity_run import CapacitySuite
    from .suite import SuiteFailed

    _terminate_on_sigterm()
    specs = selected_servers(servers_dir, servers)
    base = QUICK_STEP if quick else FULL_STEP
    try:
        step = Timing(base.ramp_up_s, base.warmup_s, step_duration or base.duration_s, base.ramp_down_s,
                      warmup_cap_s=None)
        plan = Plan(parse_slo(slo), start_rate, factor, max_steps, step,
                    QUICK_FIRST_WARMUP_S if quick else FULL_FIRST_WARMUP_S)
        if target_rate is not None and target_rate <= 0:
            raise ValueError("--target-rate must be positive")
        modes = _csv(mode, str, "--mode")
        if any(MODE_TRANSPORT.get(m) == "stdio" for m in modes):
            raise ValueError("--mode stdio: a capacity ladder is measured over HTTP; use `mcpbench run --transport stdio`")
        config = RunConfig(runtime=runtime, servers=tuple(s.name for s in specs), modes=modes,
                           vus=(vus,), runs=runs, timing=step, profile=resource_profile(cpus, memory_mb),
                           build=not no_build, calibrate=not no_calibrate, load_generator=load_generator,
                           load_instances=load_instances)
    except (SloError, ValueError) as exc:
        raise fail(str(exc)) from exc
    suite = CapacitySuite(config, plan, specs, results_dir, console)
    try:
        record = suite.run()
    except SuiteFailed as exc:
        raise fail(str(exc), 1) from exc
    _print_capacities(suite.capacities, target_rate)
    _exit_for(record)


@app.command()
def soak(
    servers: ServersArg = None,
    servers_dir: ServersDirOpt = SERVERS_DIR,
    runtime: RuntimeOpt = runtimes.DEFAULT,
    duration: Annotated[str, typer.Option(help="How long the load is held after the warm-up: 30m, 90s, 1h.")]
    = "30m",
    rate: Annotated[Optional[float], typer.Option(help="Tool calls/s to offer every server (default: --share "
                                                       "of each one's measured capacity).")] = None,
    share: Annotated[float, typer.Option(help="Without --rate: this share of the server's capacity.")] = 0.5,  # soak.DEFAULT_SHARE
    capacity_from: Annotated[Optional[Path], typer.Option(
        help="The `mcpbench capacity` run to take capacities from (default: the newest that has one).")] = None,
    max_errors: Annotated[str, typer.Option(help="The error SLO: failed tool calls over the window.")] = "1%",
    mode: Annotated[str, typer.Option(help=f"Session mode: {', '.join(MODES)}.")] = "session",
    vus: Annotated[int, typer.Option(help="VUs the load generator pre-allocates (it may grow to 4x).")] = 50,
    quick: Annotated[bool, typer.Option("--quick", help="A 10 s warm-up instead of 60 s.")] = False,
    cpus: CpusOpt = 2.0,
    memory_mb: MemoryOpt = 2048,
    no_build: NoBuildOpt = False,
    load_generator: LoadgenOpt = loadgen.DEFAULT,
    load_instances: LoadInstancesOpt = 1,
    results_dir: ResultsParentOpt = RESULTS_DIR,
) -> None:
    """Soak: a constant load held for a long time while the server's process tree is read at 1 Hz; judged
    on RSS growth, file descriptors, threads, p99 drift and errors (soak.json, the report's soak page)."""
    from .soak import FULL_WARMUP_S, QUICK_WARMUP_S, SoakError, SoakPlan, parse_duration, parse_percentage
    from .soak_run import SoakSuite, capacity_rates
    from .suite import SuiteFailed

    _terminate_on_sigterm()
    specs = selected_servers(servers_dir, servers)
    try:
        plan = SoakPlan(parse_duration(duration), QUICK_WARMUP_S if quick else FULL_WARMUP_S, rate, share,
                        parse_percentage(max_errors, "--max-errors"))
        if mode not in MODES or MODE_TRANSPORT[mode] != "http":
            raise SoakError(f"--mode {mode!r}: a soak's load is an arrival rate over HTTP; choose one of "
                            + ", ".join(m for m in MODES if MODE_TRANSPORT[m] == "http"))
        if rate is not None:
            rates = {spec.name: (rate, "given") for spec in specs}
        else:
            runs = [capacity_from] if capacity_from else sorted(
                (p for p in results_dir.glob("*") if p.is_dir()), reverse=True)
            if capacity_from and not capacity_from.is_dir():
                raise SoakError(f"--capacity-from {capacity_from}: no such directory")
            rates = capacity_rates(runs, [s.name for s in specs], mode, plan.share)
        config = RunConfig(runtime=runtime, servers=tuple(s.name for s in specs), modes=(mode,), vus=(vus,), runs=1,
                           timing=plan.timing, profile=resource_profile(cpus, memory_mb), build=not no_build,
                           calibrate=False, load_generator=load_generator, load_instances=load_instances)
    except (SoakError, ValueError) as exc:
        raise fail(str(exc)) from exc
    suite = SoakSuite(config, plan, rates, specs, results_dir, console)
    try:
        record = suite.run()
    except SuiteFailed as exc:
        raise fail(str(exc), 1) from exc
    if suite.results:
        console.print("soak verdicts: " + ", ".join(f"{s} {d['verdict']}" for s, d in suite.results.items()))
    _exit_for(record)


def _exit_for(record) -> None:
    """Where the results are, and the exit code: 130 interrupted, 1 when a server failed (unavailable —
    this machine lacks its toolchain — is said, not a failure of the run)."""
    console.print(f"Results in {record.directory}")
    if record.data["status"] != "complete":
        raise typer.Exit(130)
    if any(server["status"] not in ("ok", "unavailable") for server in record.data["servers"].values()):
        raise typer.Exit(1)


def _print_capacities(capacities: dict[str, dict], target_rate: float | None) -> None:
    from statistics import median

    from .capacity import instances_for

    table = Table(title="capacity (highest passing step, tool calls/s)")
    for column in ("server", "mode", "per round", "median", "stopped by") + (("instances",) if target_rate else ()):
        table.add_column(column)
    for server, document in capacities.items():
        by_mode: dict[str, list[dict]] = {}
        for entry in document["rounds"]:
            by_mode.setdefault(entry["mode"], []).append(entry)
        for mode, entries in by_mode.items():
            values = [e["capacity_calls_per_s"] or 0.0 for e in entries]
            middle = median(values)
            row = [server, mode, ", ".join(f"{v:g}" for v in values), f"{middle:g}",
                   "; ".join(dict.fromkeys(e["stopped_by"] for e in entries))]
            if target_rate:
                needed = instances_for(target_rate, middle)
                row.append("—" if needed is None else str(needed))
            table.add_row(*row)
    console.print(table)


@app.command()
def calibrate(
    mode: Annotated[str, typer.Option(help="Session mode(s), comma-separated.")] = "session,stateless",
    vus: Annotated[int, typer.Option(help="VUs.")] = 50,
    quick: Annotated[bool, typer.Option("--quick", help="Smoke profile.")] = False,
    duration: Annotated[Optional[float], typer.Option(help="Measured seconds.")] = 60,
    load_generator: LoadgenOpt = loadgen.DEFAULT,
    load_instances: LoadInstancesOpt = 1,
    results_dir: Annotated[Path, typer.Option(help="Parent of the calibration's results directory.")] = RESULTS_DIR,
) -> None:
    """Measure the harness's own limits: the load generator + infra against a trivial MCP endpoint with no I/O."""
    from .calibrate import calibrate as run_calibration

    _terminate_on_sigterm()
    base = (Timing(ramp_up_s=2, warmup_s=5, duration_s=15, ramp_down_s=2, warmup_cap_s=None) if quick else
            Timing(ramp_up_s=5, warmup_s=15, duration_s=duration or 60, ramp_down_s=2, warmup_cap_s=None))
    out = results_dir / f"{new_run_id('local')}-calibrate"
    loads = [ClosedLoad(m, vus) for m in _csv(mode, str, "--mode")]
    try:
        run_calibration(out, loads, base, resource_profile(2.0, 2048), console, load_generator=load_generator,
                        load_instances=load_instances)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    except Exception as exc:  # noqa: BLE001 - one line, no traceback
        raise fail(_one_line(exc), 1) from exc
    console.print(f"Calibration in {out}")


@app.command()
def upgrade(
    results: Annotated[list[Path], typer.Argument(help="Results directories to rewrite in the current schema.",
                                                  show_default=False)],
) -> None:
    """Rewrite results directories in the current schema, every figure recomputed from the raw files by
    today's analysis (what the suite alone knew, a dead server or infrastructure, is kept)."""
    from .model import ResultsError
    from .upgrade import upgrade_results

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

    from .session import Bench

    _terminate_on_sigterm()
    spec = selected_servers(servers_dir, [server])[0]
    profile = resource_profile(cpus, memory_mb)
    out = results_dir / f"{new_run_id(runtime)}-serve"
    try:
        with Bench(runtime, profile, out) as bench:
            infra = bench.start_infra()
            bench.reset()
            env = bench.runtime.server_environment(spec, infra)
            with bench.server(spec, out / "server.log") as running:
                console.print(f"[bold]{spec.name}[/] ready in {running.startup_s:.2f} s at [bold]{running.url}[/]")
                console.print(f"  Redis {infra.redis_url}, API service {infra.api_url}; server log {out / 'server.log'}")
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
    except Exception as exc:  # noqa: BLE001 - one line, no traceback
        raise fail(_one_line(exc), 1) from exc


def _register_report_commands() -> None:
    try:
        from mcpbench_report.commands import compare, report
    except ImportError:  # the report package is optional at import time; its own tests cover it
        return
    app.command("report")(report)
    app.command("compare")(compare)


_register_report_commands()
runtimes.register_commands(app)  # e.g. `mcpbench images …`, `mcpbench compose …` (runtime/docker_cli.py)


def main() -> None:
    """The `mcpbench` entry point: whatever a command did not catch is one line, not a traceback (the
    traceback goes to a file for whoever debugs it)."""
    try:
        app()
    except Exception as exc:  # noqa: BLE001 - the last line of defence, by design
        import tempfile
        import traceback

        with tempfile.NamedTemporaryFile("w", prefix="mcpbench-error-", suffix=".log", delete=False) as log:
            log.write(traceback.format_exc())
        console.print(f"[bold red]error:[/] {_one_line(exc)} (traceback in {log.name})")
        sys.exit(1)
    finally:
        processes.stop_all()


if __name__ == "__main__":
    main()
