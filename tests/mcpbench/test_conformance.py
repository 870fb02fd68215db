"""workload/conformance.py: which of the official MCP conformance suite's scenarios apply, and how its checks.json
is judged, on checks.json files the pinned suite wrote against real servers (tests/fixtures/conformance/README.md);
the install's errors; one real scenario run."""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path

import pytest

from mcpbench.host.paths import CONFORMANCE_DIR
from mcpbench.results import model
from mcpbench.workload import conformance
from mcpbench.workload.verify import Verify

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "conformance"


def recorded(server: str, scenario: str) -> list[dict]:
    return json.loads((FIXTURES / server / f"{scenario}.json").read_text())


@pytest.mark.parametrize("scenario", conformance.APPLICABLE)
def test_a_scenario_whose_checks_all_succeed_passes(scenario: str) -> None:
    result = conformance.judge(recorded("go", scenario))
    assert result.passed and result.status == "pass"
    assert result.failures == [] and result.warnings == []
    assert result.reason.startswith("all checks pass")


def test_one_failing_check_fails_the_scenario_with_its_message() -> None:
    # go with ALLOWED_HOSTS=*: the foreign Host is served, localhost still accepted
    result = conformance.judge(recorded("go-unguarded", "dns-rebinding-protection"))
    assert not result.passed and result.status == "fail" and result.checks == 2
    assert result.failures == ["DNSRebindingRejected: Expected HTTP 4xx for invalid Host/Origin headers, got 200"]
    assert result.reason == result.failures[0]


def test_a_scenario_the_server_cannot_serve_fails_with_the_servers_error() -> None:
    result = conformance.judge(recorded("go", "completion-complete"))
    assert not result.passed
    assert result.failures == ['CompletionComplete: Failed: MCP error -32601: method not found: "completion/complete"']


def test_warnings_and_notes_alone_are_no_pass() -> None:
    # server-sse-polling against a stateless server: a WARNING (no session id) and INFO notes, nothing succeeded
    result = conformance.judge(recorded("go", "server-sse-polling"))
    assert not result.passed and result.reason == "no check succeeded"
    assert result.warnings == ["ServerSSEPollingSession: Server did not provide session ID - SSE polling tests may "
                               "not work correctly"]
    assert not conformance.judge([]).passed


def test_a_warning_beside_successes_passes_as_verifys_warn() -> None:
    # Real checks of two recordings put together: the suite's WARNING is a SHOULD not met, said but not failing.
    warning = next(c for c in recorded("go", "server-sse-polling") if c["status"] == "WARNING")
    result = conformance.judge([*recorded("go", "dns-rebinding-protection"), warning])
    assert result.passed and result.status == "warn"
    assert result.reason.startswith("passed with warnings; ServerSSEPollingSession: Server did not provide session ID")


def test_logging_set_level_applies_only_where_the_server_advertises_logging() -> None:
    scenarios, not_applicable = conformance.applicable({"tools": {}})
    assert scenarios == list(conformance.APPLICABLE)
    assert not_applicable[conformance.LOGGING_SCENARIO] == conformance.NO_LOGGING
    scenarios, not_applicable = conformance.applicable({"tools": {}, "logging": {}})
    assert scenarios == [*conformance.APPLICABLE, conformance.LOGGING_SCENARIO]
    assert conformance.LOGGING_SCENARIO not in not_applicable
    # quarkus advertises logging and passes; go's SDK answers logging/setLevel without advertising it (the suite's
    # check succeeds there too, but the scenario is not applicable to go)
    assert conformance.judge(recorded("quarkus", "logging-set-level")).passed
    assert conformance.judge(recorded("go", "logging-set-level")).passed


def test_every_scenario_is_either_applicable_or_has_a_reason() -> None:
    scenarios, not_applicable = conformance.applicable({"logging": {}})
    assert not set(scenarios) & set(not_applicable)
    assert len(scenarios) + len(not_applicable) == 32  # the suite's server scenarios (`conformance list --server`)
    assert all(reason.strip() for reason in not_applicable.values())


def test_verdicts_become_verify_checks_and_the_verify_json_object() -> None:
    suite = conformance.Conformance.of(
        {"server-initialize": conformance.judge(recorded("go", "server-initialize")),
         "dns-rebinding-protection": conformance.judge(recorded("go-unguarded", "dns-rebinding-protection"))},
        conformance.applicable({})[1])
    checks = suite.checks()
    assert [(c.name, c.status) for c in checks] == [("conformance: server-initialize", "pass"),
                                                    ("conformance: dns-rebinding-protection", "fail"),
                                                    ("conformance", "warn")]
    assert checks[-1].reason.startswith("1/2 applicable scenarios of @modelcontextprotocol/conformance 0.1.16 pass; "
                                        "failed: dns-rebinding-protection")
    record = Verify.of(checks, conformance=suite).model_dump(exclude_unset=True)
    validated = model.validated(model.Verify, record, "verify.json")
    assert validated["conformance"]["passed"] == 1 and validated["conformance"]["applicable"] == 2
    assert validated["conformance"]["suite"] == "@modelcontextprotocol/conformance 0.1.16"
    # without the suite, verify.json has no conformance (a reader takes null)
    assert "conformance" not in Verify.of(checks).model_dump(exclude_unset=True)
    assert model.validated(model.Verify, Verify.of(checks).model_dump(exclude_unset=True),
                           "verify.json")["conformance"] is None


@pytest.mark.parametrize("server", ["go", "quarkus", "unguarded"])
def test_recorded_verify_json_files_with_conformance_are_valid(server: str) -> None:
    data = json.loads((FIXTURES / "verify" / f"{server}.json").read_text())
    suite = model.validated(model.Verify, data, server)["conformance"]
    assert (suite["passed"], suite["applicable"]) == {"go": (4, 4), "quarkus": (5, 5), "unguarded": (3, 4)}[server]


def test_the_pin_is_the_version_the_module_names() -> None:
    package = json.loads((CONFORMANCE_DIR / "package.json").read_text())
    assert package["dependencies"][conformance.PACKAGE] == conformance.VERSION
    lock = json.loads((CONFORMANCE_DIR / "package-lock.json").read_text())
    assert lock["packages"][f"node_modules/{conformance.PACKAGE}"]["version"] == conformance.VERSION
    # the same Node 24 the nodejs server pins for its nodejs-node24 variant (the suite needs Node >= 22: fs.globSync)
    nodejs = json.loads((CONFORMANCE_DIR.parents[1] / "servers" / "nodejs" / "package.json").read_text())
    assert nodejs["devDependencies"]["node24"] == f"npm:node@{package['dependencies']['node']}"


def test_no_npm_is_a_one_line_unavailable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copy(CONFORMANCE_DIR / "package.json", tmp_path)
    shutil.copy(CONFORMANCE_DIR / "package-lock.json", tmp_path)
    monkeypatch.setattr(conformance.shutil, "which", lambda name: None)
    with pytest.raises(conformance.SuiteUnavailable, match="npm is not installed"):
        conformance.install(tmp_path)


def test_a_failed_install_is_a_one_line_unavailable(tmp_path: Path) -> None:
    if not shutil.which("npm"):
        pytest.skip("npm is not installed")
    # a lock that does not match package.json: npm ci refuses before fetching anything
    (tmp_path / "package.json").write_text(json.dumps({"name": "x", "version": "1.0.0",
                                                       "dependencies": {"left-pad": "1.3.0"}}))
    (tmp_path / "package-lock.json").write_text(json.dumps({"name": "x", "version": "1.0.0", "lockfileVersion": 3,
                                                            "packages": {"": {"name": "x", "version": "1.0.0"}}}))
    with pytest.raises(conformance.SuiteUnavailable) as caught:
        conformance.install(tmp_path)
    assert str(caught.value).startswith(f"npm ci in {tmp_path} failed (exit ")
    assert "\n" not in str(caught.value)


@pytest.fixture(scope="module")
def suite() -> Path:
    try:
        conformance.install(CONFORMANCE_DIR)
    except conformance.SuiteUnavailable as exc:
        pytest.skip(str(exc))
    return CONFORMANCE_DIR


def test_the_pinned_suite_has_exactly_the_scenarios_accounted_for(suite: Path) -> None:
    scenarios, not_applicable = conformance.applicable({"logging": {}})
    assert sorted(conformance.suite_scenarios(suite)) == sorted([*scenarios, *not_applicable])


def test_a_server_that_does_not_answer_fails_each_scenario_without_raising(suite: Path) -> None:
    with socket.socket() as bound:  # bound, never listening: a port nothing answers on
        bound.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{bound.getsockname()[1]}/mcp"
        result = conformance.run_scenario(suite, url, "ping")
        whole = conformance.run(url, suite)
    assert not result.passed and result.failures and result.failures[0].startswith("Ping: Failed:")
    assert whole.passed == 0 and whole.applicable == len(conformance.APPLICABLE)
