"""`mcpbench verify --conformance`: the official MCP conformance suite (@modelcontextprotocol/conformance, pinned
in benchmark/conformance with the Node 24 it needs) run against a server's URL, its applicable scenarios only.

The suite's server scenarios mostly call test tools, prompts and resources a server must implement for the
suite (`test_simple_text`, `test://static-text`, …); the reference servers implement the workload's three tools
and nothing else, so only the scenarios that test the protocol itself apply (APPLICABLE, logging-set-level
where the server advertises logging); NOT_APPLICABLE says why for every other one.

A scenario passes when the suite recorded at least one SUCCESS and no FAILURE. A WARNING (a SHOULD the server
does not meet; the suite's own tally counts it apart from passed and failed) still passes, as verify's "warn":
said, not failing the server. INFO checks are the suite's notes and are not judged."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import httpx

from mcpbench.records import Closed, described
from mcpbench.workload.checks import Check, Status
from mcpbench.workload.mcp_client import JsonRpc, McpClient

PACKAGE = "@modelcontextprotocol/conformance"
VERSION = "0.1.16"   # benchmark/conformance/package.json pins it (and the node it runs on)
SUITE = f"{PACKAGE} {VERSION}"
SUITE_REVISION = "2025-11-25"  # the revision the suite's client (its MCP SDK 1.32) initializes with

# The protocol's own scenarios: no test tool, prompt or resource of the suite's needed.
APPLICABLE = ("server-initialize", "ping", "tools-list", "dns-rebinding-protection")
LOGGING_SCENARIO = "logging-set-level"   # applies where the server advertises the logging capability
NO_LOGGING = "the server does not advertise the logging capability (initialize result)"

_TEST_TOOL = "calls the suite's test tool {}, which the workload (three tools) does not have"
_RESOURCES = "no resources capability: the workload has tools only"
_PROMPTS = "no prompts capability: the workload has tools only"
# Every other server scenario of the suite (`conformance list`), with why it does not apply.
NOT_APPLICABLE: dict[str, str] = {
    "completion-complete": "no completions capability: it completes the suite's prompt test_prompt_with_arguments",
    "tools-call-simple-text": _TEST_TOOL.format("test_simple_text"),
    "tools-call-image": _TEST_TOOL.format("test_image_content"),
    "tools-call-audio": _TEST_TOOL.format("test_audio_content"),
    "tools-call-embedded-resource": _TEST_TOOL.format("test_embedded_resource"),
    "tools-call-mixed-content": _TEST_TOOL.format("test_multiple_content_types"),
    "tools-call-with-logging": _TEST_TOOL.format("test_tool_with_logging"),
    "tools-call-error": _TEST_TOOL.format("test_error_handling"),
    "tools-call-with-progress": _TEST_TOOL.format("test_tool_with_progress"),
    "tools-call-sampling": _TEST_TOOL.format("test_sampling") + " (and sampling from the client)",
    "tools-call-elicitation": _TEST_TOOL.format("test_elicitation") + " (and elicitation from the client)",
    "json-schema-2020-12": "looks for the suite's tool json_schema_2020_12_tool in tools/list, which the workload "
                           "does not have",
    "elicitation-sep1034-defaults": _TEST_TOOL.format("test_elicitation_sep1034_defaults"),
    "elicitation-sep1330-enums": _TEST_TOOL.format("test_elicitation_sep1330_enums"),
    "server-sse-polling": "calls the suite's test tool test_reconnection on an SSE stream in a session; the servers "
                          "answer stateless JSON",
    "server-sse-multiple-streams": "opens concurrent SSE streams in one session; the servers are stateless (no "
                                   "session id) and answer JSON",
    "resources-list": _RESOURCES,
    "resources-read-text": _RESOURCES,
    "resources-read-binary": _RESOURCES,
    "resources-templates-read": _RESOURCES,
    "resources-subscribe": _RESOURCES,
    "resources-unsubscribe": _RESOURCES,
    "prompts-list": _PROMPTS,
    "prompts-get-simple": _PROMPTS,
    "prompts-get-with-args": _PROMPTS,
    "prompts-get-embedded-resource": _PROMPTS,
    "prompts-get-with-image": _PROMPTS,
}

SCENARIO_TIMEOUT_S = 90.0   # the suite's client waits 60 s for a reply; a scenario is a few requests
INSTALL_TIMEOUT_S = 600.0


class SuiteUnavailable(Exception):
    """The suite cannot run on this machine (npm missing, its install failed): one line, no traceback."""


class ConformanceScenario(Closed):
    """One scenario's verdict (verify.json `conformance.scenarios`, by the scenario's name)."""

    passed: bool = described("the suite recorded at least one SUCCESS and no FAILURE (a WARNING passes, said)")
    checks: int = described("how many checks the suite recorded")
    failures: list[str] = described("each FAILURE: its name and message")
    warnings: list[str] = described("each WARNING: its name and message")

    @property
    def status(self) -> Status:
        return "fail" if not self.passed else "warn" if self.warnings else "pass"

    @property
    def reason(self) -> str:
        if self.failures:
            return "; ".join(self.failures)
        if not self.passed:
            return "no check succeeded"
        return "; ".join(["all checks pass" if not self.warnings else "passed with warnings", *self.warnings]) \
            + f" ({self.checks} check{'s' if self.checks != 1 else ''})"


class Conformance(Closed):
    """verify.json's `conformance`: the suite's applicable scenarios, each judged, and why every other one does
    not apply."""

    suite: str = described("the official MCP conformance suite that ran: npm package and version")
    passed: int = described("applicable scenarios that passed")
    applicable: int = described("scenarios that apply to the server (the protocol's own; logging-set-level where "
                                "it advertises logging)")
    scenarios: dict[str, ConformanceScenario] = described("each applicable scenario's verdict, by its name")
    not_applicable: dict[str, str] = described("every other server scenario of the suite, with why it does not apply")

    @classmethod
    def of(cls, scenarios: dict[str, ConformanceScenario], not_applicable: dict[str, str]) -> Conformance:
        """The pinned suite's verdict from its scenarios' (SUITE)."""
        return cls(suite=SUITE, passed=sum(result.passed for result in scenarios.values()),
                   applicable=len(scenarios), scenarios=scenarios, not_applicable=dict(not_applicable))

    def checks(self) -> list[Check]:
        """verify's checks: one per scenario, then the summary. The summary passes or notes (warn): a failed
        scenario already fails verify through its own check, and a --what-if twin whose only failures are
        deployment checks (workload/verify.py DEPLOYMENT_CHECKS) must not fail through the summary."""
        failed = [name for name, result in self.scenarios.items() if not result.passed]
        summary = f"{self.passed}/{self.applicable} applicable scenarios of {self.suite} pass" + (
            f"; failed: {', '.join(failed)}" if failed else "") + f"; {len(self.not_applicable)} not applicable"
        return [*(Check(name=f"conformance: {name}", status=result.status, reason=result.reason)
                  for name, result in self.scenarios.items()),
                Check(name="conformance", status="warn" if failed else "pass", reason=summary)]


def applicable(capabilities: JsonRpc) -> tuple[list[str], dict[str, str]]:
    """The scenarios that apply to a server with these capabilities (its initialize result's), and why each
    other one does not."""
    scenarios = list(APPLICABLE)
    not_applicable = dict(NOT_APPLICABLE)
    if "logging" in capabilities:
        scenarios.append(LOGGING_SCENARIO)
    else:
        not_applicable[LOGGING_SCENARIO] = NO_LOGGING
    return scenarios, not_applicable


def judge(checks: list[JsonRpc]) -> ConformanceScenario:
    """One scenario's verdict from the suite's checks.json (a list of {id, name, status, errorMessage, …})."""
    def said(check: JsonRpc) -> str:
        message = check.get("errorMessage") or (check.get("details") or {}).get("message") \
            or check.get("description") or ""
        return f"{check.get('name') or check.get('id')}: {message}"

    statuses = [check.get("status") for check in checks]
    failures = [said(c) for c in checks if c.get("status") == "FAILURE"]
    warnings = [said(c) for c in checks if c.get("status") == "WARNING"]
    passed = not failures and "SUCCESS" in statuses
    return ConformanceScenario(passed=passed, checks=len(checks), failures=failures, warnings=warnings)


def server_capabilities(url: str) -> JsonRpc:
    """The capabilities a server's initialize result advertises, asked at the suite's revision ({} when the
    reply has none: the scenarios that need a capability are then not applicable)."""
    with McpClient(url) as client:
        reply = client.request("initialize", {"protocolVersion": SUITE_REVISION, "capabilities": {},
                                              "clientInfo": {"name": "mcpbench", "version": "1"}})
    capabilities = (reply.result or {}).get("capabilities")
    return capabilities if isinstance(capabilities, dict) else {}


def _installed(directory: Path) -> bool:
    """node_modules is there and not older than package-lock.json (npm writes node_modules/.package-lock.json
    at every install)."""
    marker = directory / "node_modules" / ".package-lock.json"
    node = directory / "node_modules" / ".bin" / "node"
    return (marker.is_file() and node.exists()
            and marker.stat().st_mtime >= (directory / "package-lock.json").stat().st_mtime)


def install(directory: Path) -> Path:
    """The pinned suite's node binary, after `npm ci` in `directory` when node_modules is missing or older than
    package-lock.json (one install at a time: a lock file beside it)."""
    directory = directory.resolve()
    if not (directory / "package-lock.json").is_file():
        raise SuiteUnavailable(f"{directory}/package-lock.json is missing: the conformance suite is not pinned there")
    if not _installed(directory):
        npm = shutil.which("npm")
        if npm is None:
            raise SuiteUnavailable("npm is not installed: the conformance suite cannot be installed "
                                   f"(npm ci in {directory})")
        with open(directory / ".install.lock", "w", encoding="utf-8") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not _installed(directory):  # another process may have installed it while this one waited
                try:
                    done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=directory, capture_output=True,
                                          text=True, timeout=INSTALL_TIMEOUT_S)
                except subprocess.TimeoutExpired:
                    raise SuiteUnavailable(f"npm ci in {directory} took over {INSTALL_TIMEOUT_S:.0f} s") from None
                if done.returncode != 0:
                    errors = [line for line in done.stderr.splitlines() if "ERR" in line] or done.stderr.splitlines()
                    raise SuiteUnavailable(f"npm ci in {directory} failed (exit {done.returncode}): "
                                           + (errors[-1].strip() if errors else "no output"))
    return directory / "node_modules" / ".bin" / "node"


def _command(directory: Path) -> list[str]:
    node = install(directory)
    return [str(node), str(directory.resolve() / "node_modules" / PACKAGE / "dist" / "index.js")]


def run_scenario(directory: Path, url: str, scenario: str,
                 timeout_s: float = SCENARIO_TIMEOUT_S) -> ConformanceScenario:
    """One scenario against `url`, in a temp dir: its checks.json judged. The suite exits 1 when a check failed;
    it is the checks, not the exit code, that are read (no checks.json: the suite itself failed)."""
    command = _command(directory)
    with tempfile.TemporaryDirectory(prefix="mcpbench-conformance-") as tmp:
        out = Path(tmp) / "out"
        try:
            done = subprocess.run([*command, "server", "--url", url, "--scenario", scenario, "-o", str(out)],
                                  cwd=tmp, capture_output=True, text=True, timeout=timeout_s,
                                  env={**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0"})
        except subprocess.TimeoutExpired:
            return _suite_failed(f"the suite's run took over {timeout_s:.0f} s")
        found = sorted(out.glob(f"server-{scenario}-*/checks.json"))
        if not found:
            lines = (done.stderr or done.stdout).strip().splitlines()
            return _suite_failed(f"the suite wrote no checks.json (exit {done.returncode})"
                                 + (f": {lines[-1][:300]}" if lines else ""))
        checks = json.loads(found[-1].read_text(encoding="utf-8"))
    return judge(checks if isinstance(checks, list) else [])


def _suite_failed(why: str) -> ConformanceScenario:
    """A scenario the suite itself could not judge: failed, no check recorded, `why` its one failure."""
    return ConformanceScenario(passed=False, checks=0, failures=[why], warnings=[])


def suite_scenarios(directory: Path) -> list[str]:
    """Every server scenario the pinned suite has (`conformance list --server`)."""
    done = subprocess.run([*_command(directory), "list", "--server"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "NO_COLOR": "1"})
    return [line.strip()[2:].split(" ")[0] for line in done.stdout.splitlines() if line.strip().startswith("- ")]


def run(url: str, directory: Path, capabilities: JsonRpc | None = None) -> Conformance:
    """The pinned suite's applicable scenarios against the MCP endpoint `url`, one after another. `capabilities`:
    the server's (asked with an initialize when not given). SuiteUnavailable when the suite cannot run here."""
    install(directory)
    if capabilities is None:
        try:
            capabilities = server_capabilities(url)
        except (httpx.HTTPError, json.JSONDecodeError):
            capabilities = {}
    scenarios, not_applicable = applicable(capabilities)
    return Conformance.of({name: run_scenario(directory, url, name) for name in scenarios}, not_applicable)
