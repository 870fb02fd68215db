"""`mcpbench verify`: each server built, started and verified (workload/verify.py) with no load — the runner's
start of a server, once, and nothing measured."""

from __future__ import annotations

import json

from rich.table import Table

from mcpbench.catalog.manifest import ServerSpec
from mcpbench.catalog.selection import setting_twin
from mcpbench.experiments.base import Experiment
from mcpbench.experiments.config import RunConfig
from mcpbench.experiments.options import (
    BUILDING,
    PLACEMENT,
    RESULTS,
    SELECTION,
    TARGET,
    Option,
    Values,
)
from mcpbench.loads.timing import Timing
from mcpbench.results.model import parsed
from mcpbench.results.read import read_json
from mcpbench.workload.checks import Check
from mcpbench.workload.dimension_tools import ToolSettings
from mcpbench.workload.verify import Verify

# The settings the NAME-tools twin is started with: what docs/workload.md §6 asks of every reference server.
VERIFY_TOOLS = ToolSettings(extra_tools=100, dimension_tools=True, sse_replies=True)


# verify's own: the official MCP conformance suite beside the workload's checks (workload/conformance.py).
CONFORMANCE = (
    Option("conformance", bool, False, "Also run the official MCP conformance suite (@modelcontextprotocol/"
           "conformance, pinned in benchmark/conformance; npm installs it on first use) against each server: its "
           "scenarios that apply to a tools-only server, each a check; verify.json `conformance`.",
           ("--conformance",)),
    Option("probes", bool, False, "Also run the robustness probes (docs/probes.md) against each lineup server: a "
           "fixed protocol-fuzz corpus, identical calls at once right after start, many sessions at once, slow and "
           "silent clients and 64 KiB headers, each followed by a normal call; verify.json `probes`, shown by the "
           "report's robustness page. A failed probe is reported, not a failed verify.", ("--probes",)),
)


def not_offered_checks(spec: ServerSpec) -> list[Check]:
    """A warning per dimension the server's manifest opts out of (`unsupported.<dimension>`), with its reason: it
    is not measured in that dimension, and nothing of the contract fails for it."""
    return [Check(name=f"dimension {name}", status="warn", reason=f"not offered (its manifest): {why}")
            for name, why in sorted(spec.info.unsupported.items())]


def with_not_offered(verdict: Verify, checks: list[Check]) -> Verify:
    """A server's verify verdict with its not-offered warnings after its checks: a pass becomes a warn, any other
    status stays."""
    if not checks:
        return verdict
    return verdict.model_copy(update={"status": "warn" if verdict.status == "pass" else verdict.status,
                                      "checks": [*verdict.checks, *checks]})


class VerifyExperiment(Experiment):
    name = "verify"
    order = 10
    help = "Start infra and each server, and check protocol, the three tools and bad input. Exit 1 on any fail."
    options = (*SELECTION, *TARGET, *PLACEMENT, *BUILDING, *RESULTS, *CONFORMANCE,
               Option("as_json", bool, False, "Machine-readable: one JSON document on stdout.", ("--json",)))
    directory_suffix = "-verify"
    json_option = "as_json"

    def __init__(self, values: Values, specs: list[ServerSpec], console=None):
        self.not_offered = {spec.name: not_offered_checks(spec) for spec in specs}
        local = values.get("runtime", "local") == "local"
        super().__init__(values, self.with_tools_twins(specs) if local else specs, console)
        if not local:  # a twin's settings are its environment, which an image's compose service does not take
            self.console.print(f"the dimension tools' start (NAME-tools) is verified under the local runtime only, "
                               f"not under {values['runtime']}")

    @staticmethod
    def with_tools_twins(specs: list[ServerSpec]) -> list[ServerSpec]:
        """Each reference server followed by NAME-tools, started with the dimension tools on (VERIFY_TOOLS):
        their checks (docs/workload.md §6) need a start of their own, since by default a server lists only
        the workload's three tools. A server given on the command line is held to its workload file only."""
        taken = {spec.name for spec in specs}
        out = []
        for spec in specs:
            out.append(spec)
            if not spec.given and spec.serves_http and not spec.overrides:
                out.append(setting_twin(spec, taken, "tools", VERIFY_TOOLS.environment(),
                                        f"EXTRA_TOOLS={VERIFY_TOOLS.extra_tools}, DIMENSION_TOOLS=1, SSE_REPLIES=1"))
        return out

    def configure(self, values: Values, specs: list[ServerSpec]) -> RunConfig:
        # Every mode's protocol is checked by verify itself: the run's one mode only decides whether a server
        # can be started at all (any HTTP server can).
        return RunConfig.from_options(values, specs, Timing(), modes=("session",), calibrate=False,
                                      conformance=values.get("conformance", False),
                                      probes=values.get("probes", False))

    def measure_server(self, server) -> None:
        with server.started("verify"):
            pass  # the runner verifies a server the first time it starts it (verify.json)

    def verdicts(self, runner) -> dict[str, Verify]:
        """Each server's verify record: verify.json, or what stopped it before (the build, the start)."""
        verdicts: dict[str, Verify] = {}
        for name, entry in (runner.record.run.servers if runner.record else {}).items():
            path = runner.run_dir.server(name).verify_json
            if path.is_file():
                verdicts[name] = parsed(Verify, read_json(path), path)
                continue
            status = "unavailable" if entry.status == "unavailable" else "fail"
            verdicts[name] = Verify(status=status, checks=[
                Check(name=entry.phase or "start", status=status, reason=entry.reason or "")])
        return {name: with_not_offered(verdict, self.not_offered.get(name, [])) for name, verdict in verdicts.items()}

    def conclude(self, runner) -> None:
        verdicts = self.verdicts(runner)
        table = Table(title="verify")
        for column in ("server", "check", "status", "reason"):
            table.add_column(column, overflow="fold")
        for name, verdict in verdicts.items():
            for check in [*verdict.checks, *(verdict.probes or [])]:
                colour = {"pass": "green", "warn": "yellow", "fail": "red", "unavailable": "yellow"}[check.status]
                table.add_row(name, check.name, f"[{colour}]{check.status}[/]", check.reason)
        self.console.print(table)
        if self.values.get("as_json"):
            ok = all(v.status != "fail" for v in verdicts.values()) and bool(
                runner.record and runner.record.run.status == "complete")
            # each as its verify.json holds it (the fields it set)
            servers = {name: v.model_dump(exclude_unset=True) for name, v in verdicts.items()}
            print(json.dumps({"ok": ok, "servers": servers}, indent=2, default=str))


EXPERIMENT = VerifyExperiment
