"""`mcpbench verify` without a load test: build, start infra, and verify each server in turn."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from . import cgroups, processes
from .build import build_api_service, build_server
from .config import ResourceProfile, RunConfig
from .runtime.base import InfraHandle
from .manifest import ServerSpec
from .results import write_json
from .suite import ServerFailed, ServerUnavailable, Suite, make_runtime
from .verify import Check, verify


def verify_servers(specs: list[ServerSpec], runtime: str, profile: ResourceProfile, build: bool,
                   out_dir: Path, console: Console) -> bool:
    """True when every server passed (warnings allowed). Writes <out_dir>/<server>/verify.json."""
    out_dir.mkdir(parents=True, exist_ok=True)
    config = RunConfig(runtime=runtime, servers=tuple(s.name for s in specs), profile=profile, build=build)  # type: ignore[arg-type]
    suite = Suite(config, specs, out_dir.parent, console, run_id=out_dir.name)
    support = cgroups.detect() if runtime == "local" else cgroups.Support(None, True, None)
    table = Table(title="verify")
    for column in ("server", "check", "status", "reason"):
        table.add_column(column, overflow="fold")
    all_ok = True
    infra = None
    runtime_impl = None
    try:
        runtime_impl = make_runtime(config, support)
        suite.runtime = runtime_impl
        if build:  # a runtime with build_infra (docker: images) builds its own artefacts
            outcome = getattr(runtime_impl, "build_infra", build_api_service)(out_dir / "api-service-build.log")
            if outcome.status != "ok":
                console.print(f"[red]the API service did not build:[/] {outcome.reason}")
                return False
        infra = runtime_impl.start_infra(out_dir / "_infra")
        suite.infra = infra
        for spec in specs:
            checks = _verify_one(spec, suite, infra, build, out_dir, console)
            write_json(out_dir / spec.name / "verify.json",
                       {"status": _status(checks), "checks": [c.__dict__ for c in checks]})
            for check in checks:
                colour = {"pass": "green", "warn": "yellow", "fail": "red", "unavailable": "yellow"}[check.status]
                table.add_row(spec.name, check.name, f"[{colour}]{check.status}[/]", check.reason)
            all_ok &= _status(checks) != "fail"
            console.print(f"{spec.name}: [bold]{_status(checks)}[/]")
    except KeyboardInterrupt:
        console.print("[red]interrupted[/]")
        all_ok = False
    finally:
        if infra:
            infra.stop()
        if runtime_impl:
            runtime_impl.close()
        processes.stop_all()
    console.print(table)
    return all_ok


def _status(checks: list[Check]) -> str:
    statuses = {c.status for c in checks}
    if "unavailable" in statuses:  # this machine lacks the server's toolchain: said, not a failure
        return "unavailable"
    return "fail" if "fail" in statuses else "warn" if "warn" in statuses else "pass"


def _verify_one(spec: ServerSpec, suite: Suite, infra: InfraHandle, build: bool, out_dir: Path,
                console: Console) -> list[Check]:
    server_dir = out_dir / spec.name
    server_dir.mkdir(parents=True, exist_ok=True)
    if build:
        with console.status(f"building {spec.name}…"):
            outcome = getattr(suite.runtime, "build_server", build_server)(spec, server_dir / "build.log")
        if outcome.status == "skipped":
            return [Check("build", "unavailable", outcome.reason or "needs a toolchain this machine lacks")]
        if outcome.status != "ok":
            return [Check("build", "fail", outcome.reason or outcome.status)]
    infra.reset()
    try:
        server = suite._start(spec, server_dir / "server.log")
    except ServerUnavailable as missing:
        return [Check("start", "unavailable", missing.reason)]
    except ServerFailed as failure:
        return [Check("start", "fail", failure.reason)]
    try:
        with console.status(f"verifying {spec.name}…"):
            checks = [Check("start", "pass", f"ready in {server.startup_s:.2f} s")]
            checks += verify(server.url, spec.name).checks
        if not server.alive():
            checks.append(Check("server alive", "fail", "the server exited during verify:\n" + server.log_tail()))
        return checks
    finally:
        server.stop()
