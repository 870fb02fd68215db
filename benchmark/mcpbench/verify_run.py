"""`mcpbench verify` without a load test: build, start infra, and verify each server in turn."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from .config import ResourceProfile
from .manifest import ServerSpec
from .results import write_checked
from .session import Bench, ServerFailed, ServerUnavailable
from .verify import Check, verify


def verify_servers(specs: list[ServerSpec], runtime: str, profile: ResourceProfile, build: bool,
                   out_dir: Path, console: Console) -> tuple[bool, dict[str, dict]]:
    """Whether every server passed (warnings allowed), and each server's verify record (also written to
    <out_dir>/<server>/verify.json)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    table = Table(title="verify")
    for column in ("server", "check", "status", "reason"):
        table.add_column(column, overflow="fold")
    all_ok = True
    verdicts: dict[str, dict] = {}
    try:
        with Bench(runtime, profile, out_dir) as bench:
            if build:
                outcome = bench.build_infra()
                if outcome.status != "ok":
                    console.print(f"[red]the API service did not build:[/] {outcome.reason}")
                    return False, verdicts
            bench.start_infra()
            for spec in specs:
                checks = _verify_one(spec, bench, build, out_dir, console)
                verdicts[spec.name] = {"status": _status(checks), "checks": [c.__dict__ for c in checks]}
                write_checked(out_dir / spec.name / "verify.json", verdicts[spec.name])
                for check in checks:
                    colour = {"pass": "green", "warn": "yellow", "fail": "red", "unavailable": "yellow"}[check.status]
                    table.add_row(spec.name, check.name, f"[{colour}]{check.status}[/]", check.reason)
                all_ok &= _status(checks) != "fail"
                console.print(f"{spec.name}: [bold]{_status(checks)}[/]")
    except KeyboardInterrupt:
        console.print("[red]interrupted[/]")
        all_ok = False
    console.print(table)
    return all_ok, verdicts


def _status(checks: list[Check]) -> str:
    statuses = {c.status for c in checks}
    if "unavailable" in statuses:  # this machine lacks the server's toolchain: said, not a failure
        return "unavailable"
    return "fail" if "fail" in statuses else "warn" if "warn" in statuses else "pass"


def _verify_one(spec: ServerSpec, bench: Bench, build: bool, out_dir: Path, console: Console) -> list[Check]:
    server_dir = out_dir / spec.name
    server_dir.mkdir(parents=True, exist_ok=True)
    if build:
        with console.status(f"building {spec.name}…"):
            outcome = bench.build(spec, server_dir / "build.log")
        if outcome.status == "skipped":
            return [Check("build", "unavailable", outcome.reason or "needs a toolchain this machine lacks")]
        if outcome.status != "ok":
            return [Check("build", "fail", outcome.reason or outcome.status)]
    bench.reset()
    try:
        with bench.server(spec, server_dir / "server.log") as server, console.status(f"verifying {spec.name}…"):
            checks = [Check("start", "pass", f"ready in {server.startup_s:.2f} s")]
            checks += verify(server.url, spec.name, spec.info.protocols).checks
            if not server.alive():
                checks.append(Check("server alive", "fail", "the server exited during verify:\n" + server.log_tail()))
            return checks
    except ServerUnavailable as missing:
        return [Check("start", "unavailable", missing.reason)]
    except ServerFailed as failure:
        return [Check("start", "fail", failure.reason)]
