"""Every discovered server: built with its manifest's command, started under limits, and verified (with the
official MCP conformance suite's applicable scenarios, as `verify --conformance`) against real Redis and the real
API service. MCPBENCH_TEST_SERVERS=a,b narrows the set."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Hashable
from pathlib import Path

import pytest

from mcpbench.host import cgroups
from mcpbench.catalog.build import BuildOutcome, build_each, build_server, local_build_key
from mcpbench.host.profile import resource_profile
from mcpbench.runtime.local_infra import Infra
from mcpbench.catalog.manifest import ServerSpec, discover
from mcpbench.host.paths import CONFORMANCE_DIR, SERVERS_DIR
from mcpbench.runtime.local import LocalRuntime
from mcpbench.host.toolchain import MissingRequirement
from mcpbench.workload import conformance
from mcpbench.experiments.verify import VERIFY_TOOLS
from mcpbench.workload.surface import METHODS as SURFACE_METHODS
from mcpbench.workload.verify import verify

pytestmark = pytest.mark.integration


def _selected() -> list[ServerSpec]:
    specs = discover(SERVERS_DIR).servers
    wanted = os.environ.get("MCPBENCH_TEST_SERVERS")
    if wanted:
        names = {n.strip() for n in wanted.split(",") if n.strip()}
        specs = [s for s in specs if s.name in names]
    return specs


@pytest.fixture(scope="session")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[Hashable, BuildOutcome]:
    """Every selected server built once, as many at a time as `mcpbench run` builds them."""
    log_dir = tmp_path_factory.mktemp("builds")
    return {local_build_key(spec): outcome for spec, outcome in
            build_each(_selected(), lambda spec: build_server(spec, log_dir / f"{spec.name}.log"))}


def _runtime_for(spec: ServerSpec, builds: dict[Hashable, BuildOutcome], infra: Infra) -> LocalRuntime:
    """The local runtime for a built server, or the test skipped: its toolchain or interpreter is missing."""
    outcome = builds[local_build_key(spec)]
    if outcome.status == "skipped":
        pytest.skip(outcome.reason or "toolchain missing")
    assert outcome.status == "ok", outcome.reason
    runtime = LocalRuntime(resource_profile(), cgroups.detect())
    try:
        runtime.server_environment(spec, infra)
    except MissingRequirement as exc:
        pytest.skip(str(exc))
    return runtime


@pytest.mark.parametrize("spec", _selected(), ids=lambda s: s.name)
def test_server_builds_starts_under_limits_and_passes_verify(
        spec: ServerSpec, builds: dict[Hashable, BuildOutcome], infra: Infra, tmp_path: Path) -> None:
    """Started as `mcpbench verify` starts its NAME-tools twin (EXTRA_TOOLS=100, DIMENSION_TOOLS=1, SSE_REPLIES=1), so one start
    checks the workload, the dimension tools against their reference answers (docs/workload.md §6) and the
    conformance suite; that a server lists only the three tools without the settings, every run's verify checks
    (an unasked-for tool fails it)."""
    runtime = _runtime_for(spec, builds, infra)
    infra.reset()
    settings = VERIFY_TOOLS.environment()
    started = dataclasses.replace(spec, run_env={**spec.run_env, **settings})
    server = runtime.start(started, infra, tmp_path / "server.log")
    try:
        verdict = verify(server.url, spec.name, spec.info.protocols, VERIFY_TOOLS, spec.info.unsupported,
                         infra.redis_url)
        names = {c.name for c in verdict.checks}
        assert {"extra tool", "echo_payload 1 MiB", "echo_payload 4 MiB", "stream_progress", "stepped_work",
                "cancellation"} <= names, names
        # stepped_work's steps in Redis; its cancelled call a warning at worst (running on is the SDK's, measured)
        assert {c.name: c.status for c in verdict.checks}["stepped_work"] == "pass", verdict.checks
        # the surface (docs/workload.md §7): each method checked, passed or a limit its manifest names
        surface_checks = {c.name: c for c in verdict.checks if c.name.split(" ")[0] in SURFACE_METHODS}
        assert len(surface_checks) == 8, sorted(surface_checks)
        assert all(c.status == "pass" or c.reason.startswith("unsupported (its manifest)")
                   for c in surface_checks.values()), surface_checks
        failures = [f"{c.name}: {c.reason}" for c in verdict.failures()]
        assert verdict.status != "fail", failures
        # what one client's whole tools/list costs, every page (the Go SDK's included): 100 extra tools, the
        # three of the workload, echo_payload, stream_progress and stepped_work, each with its name and schema
        listed = verdict.tools_list
        assert listed is not None and listed.tools == 106 and listed.bytes > 50 * listed.tools, listed
        assert server.alive(), server.log_tail()
        usage = server.usage()
        assert usage is not None and usage.memory_bytes > 0
        # verify --conformance: every scenario of the official suite that applies to the server passes
        try:
            suite = conformance.run(server.url, CONFORMANCE_DIR)
        except conformance.SuiteUnavailable as exc:
            pytest.skip(f"verify passed; the conformance suite cannot run here: {exc}")
        failed = {name: result.failures for name, result in suite.scenarios.items() if not result.passed}
        assert not failed and suite.passed == suite.applicable >= len(conformance.APPLICABLE), failed
        assert server.alive(), server.log_tail()
    finally:
        server.stop()


def _stdio_selected() -> list[ServerSpec]:
    return [spec for spec in _selected() if spec.serves_stdio]


@pytest.mark.parametrize("spec", _stdio_selected(), ids=lambda s: s.name)
def test_server_over_stdio_answers_every_call_correctly_under_limits(
        spec: ServerSpec, builds: dict[Hashable, BuildOutcome], infra: Infra, tmp_path: Path) -> None:
    """The manifest's [stdio] command, prepared by the runtime (its cgroup) and driven by the load driver
    with calls in flight: every reply passes load.js's checks, nothing is left running."""
    from mcpbench.loadgen import LoadDriver
    from mcpbench.loads import ClosedLoad
    from mcpbench.loads.timing import Timing
    from mcpbench.results.layout import MeasurementDir

    runtime = _runtime_for(spec, builds, infra)
    infra.reset()
    server = runtime.stdio_server(spec, infra, tmp_path / "server.log")
    timing = Timing(ramp_up_s=0, warmup_s=1, duration_s=3, ramp_down_s=0, think_time_s=0.01, warmup_cap_s=None)
    try:
        run = LoadDriver(None).run("", ClosedLoad("stdio", 8), timing, MeasurementDir(tmp_path), launch=server.stdio_launch)
    finally:
        server.stop()
    failed = run.samples[run.samples["ok"] == 0]
    assert failed.empty, (failed["error_kind"].value_counts().to_dict(), server.log_tail())
    assert run.exit_code == 0 and run.target_died is None, run.counts
    assert len(run.samples) > 20 and run.counts is not None and run.counts.garbage_lines == 0
    assert run.samples["vu"].nunique() == 8  # eight calls in flight on one session
