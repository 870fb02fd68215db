"""Servers given on the command line (catalog/target.py): each made into the ServerSpec a manifest would make,
with its workload file; every mistake one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpbench.catalog.target import REACH_TIMEOUT_S, TargetError, target_specs

WORKLOAD = '[[call]]\ntool = "echo"\narguments = { message = "hi {vu}" }\n'


@pytest.fixture
def workload(tmp_path: Path) -> Path:
    path = tmp_path / "w.toml"
    path.write_text(WORKLOAD)
    return path


def test_a_command_is_a_server_the_suite_starts(workload: Path, tmp_path: Path) -> None:
    (spec,) = target_specs(workload, command="./bin/My_Server --port {port}", env=["A=1", "B=x=y"],
                           directory=tmp_path)
    assert spec.name == "my_server" and spec.run_command == ("./bin/My_Server", "--port", "{port}")
    assert spec.run_env == {"A": "1", "B": "x=y"} and spec.directory == tmp_path and not spec.serves_stdio
    assert spec.workload is not None and spec.workload.tool_names == ("echo",) and spec.build_commands == ()
    written = spec.describe().model_dump(exclude_unset=True)   # server.json as the runner writes it
    assert written["workload"] == str(workload) and "url" not in written


def test_stdio_and_url_and_headers(workload: Path) -> None:
    (both,) = target_specs(workload, command="srv", stdio="srv --stdio", name="mine")
    assert both.serves_http and both.serves_stdio and both.stdio_command == ("srv", "--stdio")
    (only,) = target_specs(workload, stdio="srv --stdio")
    assert not only.serves_http and only.serves_stdio
    (remote,) = target_specs(workload, url="http://127.0.0.1:8080/mcp", headers=["Authorization: Bearer t"])
    assert remote.url == "http://127.0.0.1:8080/mcp" and remote.run_command == () and remote.serves_http
    assert remote.ready_timeout_s == REACH_TIMEOUT_S and remote.describe().url == remote.url
    assert remote.workload is not None and '"headers":{"Authorization":"Bearer t"}' in remote.workload.driver_json()


def test_targets_side_by_side(workload: Path) -> None:
    a, b, c = target_specs(workload, targets=["one=srv --workers 1", "four=env WORKERS=4 srv",
                                              "there=https://example.invalid/mcp"])
    assert [s.name for s in (a, b, c)] == ["one", "four", "there"]
    assert b.run_command == ("env", "WORKERS=4", "srv") and c.url == "https://example.invalid/mcp"


@pytest.mark.parametrize(("kwargs", "said"), [
    ({"command": "srv"}, "--command needs --workload FILE"),
    ({"targets": ["a=srv"], "command": "x"}, "leave out --command, --stdio and --url"),
    ({"url": "http://h/mcp", "command": "x"}, "give one of them"),
    ({"targets": ["a=srv", "a=srv2"]}, "--target a is given twice"),
    ({"targets": ["nameonly"]}, "give NAME=COMMAND or NAME=URL"),
    ({"targets": ["Big=srv"]}, "target name 'Big'"),
    ({"command": "srv 'unclosed"}, "No closing quotation"),
    ({"command": "srv", "env": ["NOEQUALS"]}, "--env 'NOEQUALS': give KEY=VALUE"),
    ({"url": "localhost:8080/mcp"}, "give an http:// or https:// URL"),
    ({"url": "http://h/mcp", "headers": ["Bad Name: x"]}, "give 'Name: value'"),
    ({"targets": ["a=srv"], "name": "x"}, "--name names a --command or --stdio target"),
])
def test_a_bad_target_is_one_line(workload: Path, kwargs: dict, said: str) -> None:
    path = None if said.startswith("--command needs") else workload
    with pytest.raises(TargetError) as caught:
        target_specs(path, **kwargs)
    assert said in str(caught.value) and "\n" not in str(caught.value)


def test_a_ready_command_is_polled_until_it_succeeds(workload: Path, tmp_path: Path) -> None:
    import time

    from mcpbench.runtime.base import StartError, wait_for_command

    (spec,) = target_specs(workload, command="srv", ready="test -f {dir}/up")
    assert spec.ready_command == "test -f {dir}/up"
    with pytest.raises(TargetError, match="--ready checks a server the suite starts"):
        target_specs(workload, url="http://127.0.0.1:9/mcp", ready="true")
    marker = tmp_path / "up"
    wait_for_command("true", tmp_path, {"PATH": "/usr/bin:/bin"}, lambda: True, time.monotonic() + 5, lambda: "")
    with pytest.raises(StartError) as caught:
        wait_for_command(f"test -f {marker} || {{ echo not up yet >&2; exit 1; }}", tmp_path,
                         {"PATH": "/usr/bin:/bin"}, lambda: True, time.monotonic() + 1.0, lambda: "")
    assert "did not succeed in time (last: not up yet)" in str(caught.value)
    with pytest.raises(StartError, match="exited during start-up"):
        wait_for_command("false", tmp_path, {"PATH": "/usr/bin:/bin"}, lambda: False, time.monotonic() + 5, lambda: "")


def test_a_header_goes_with_the_readiness_check_too(workload: Path) -> None:
    # --header 'Authorization: …' on a --command target: a server that refuses initialize without it must still
    # be found ready (the local runtime's wait_until_ready is handed the spec's headers).
    (spec,) = target_specs(workload, command="srv", headers=["Authorization: Bearer t"])
    assert spec.headers == {"Authorization": "Bearer t"}
    (plain,) = target_specs(workload, command="srv")
    assert plain.headers == {}


def test_only_a_workload_that_reads_the_suite_s_data_uses_redis_and_the_api_service(workload: Path,
                                                                                   tmp_path: Path) -> None:
    from mcpbench.catalog.manifest import load_manifest
    from mcpbench.experiments.options import modes_of
    from mcpbench.host.paths import SERVERS_DIR
    from mcpbench.workload.file import LINEUP

    (own,) = target_specs(workload, command="srv")
    (copy,) = target_specs(LINEUP, command="srv")    # a lineup server's copy, measured with the lineup's calls
    seeded = tmp_path / "seeded.toml"
    seeded.write_text("seeded = true\n" + WORKLOAD)
    (said,) = target_specs(seeded, command="srv")
    lineup = load_manifest(SERVERS_DIR / "go" / "mcpbench.toml")[0]
    assert [s.uses_infra for s in (own, copy, said, lineup)] == [False, True, True, True]
    # a --stdio server alone is measured over stdio; one that serves HTTP too keeps the default
    (alone,) = target_specs(workload, stdio="srv --stdio")
    (both,) = target_specs(workload, command="srv", stdio="srv --stdio")
    assert modes_of({}, [alone]) == ("stdio",) and modes_of({}, [both]) == ("session",)
    assert modes_of({"mode": "stdio,persistent"}, [alone]) == ("stdio", "persistent")
