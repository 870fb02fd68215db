"""The swarm rendering of the compose model (runtime/swarm_stack.py) and the swarm file (runtime/swarm_cluster.py), on the
real manifests and the real compose generator: no engine needed. The lab end to end is tests/docker/test_swarm_lab.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpbench.catalog.manifest import discover
from mcpbench.host.paths import SERVERS_DIR
from mcpbench.runtime import docker_compose as compose
from mcpbench.runtime.swarm_cluster import SwarmError, parse_engine_time, read_swarm_file
from mcpbench.runtime.swarm_stack import interpolate, stack_document, swarm_service


@pytest.fixture(scope="module")
def go_service() -> dict:
    spec = next(s for s in discover(SERVERS_DIR).servers if s.name == "go")
    return compose.document([spec])[0]["services"]["go"]


def test_a_server_becomes_a_swarm_service_of_the_same_compose_model(go_service: dict) -> None:
    rendered = swarm_service(go_service, {"MCPBENCH_CPUS": "1", "MCPBENCH_MEMORY_MB": "512"}, image="sha256:abc",
                             role="server", node_id="n1", cpus=1.0, memory_mb=512,
                             environment={"ALLOWED_HOSTS": "go,10.0.0.5"})
    # What runs is the compose model's: its command, its contract environment (limits interpolated) …
    assert rendered.get("command") == go_service.get("command")
    env = rendered["environment"]
    assert env["CPU_LIMIT"] == "1" and env["MEMORY_LIMIT_MB"] == "512" and env["PORT"] == "8080"
    assert env["REDIS_URL"] == "redis://redis:6379" and env["ALLOWED_HOSTS"] == "go,10.0.0.5"
    assert rendered["image"] == "sha256:abc" and rendered["init"] is True
    # … and where and on what is swarm's: alone on the server node, limits reserved, never restarted, no IPVS.
    deploy = rendered["deploy"]
    assert deploy["placement"]["constraints"] == ["node.labels.mcpbench.role==server", "node.id==n1"]
    assert deploy["resources"]["limits"] == deploy["resources"]["reservations"] == {"cpus": "1", "memory": "512M"}
    assert deploy["restart_policy"] == {"condition": "none"} and deploy["endpoint_mode"] == "dnsrr"
    assert rendered["ports"] == [{"target": 8080, "protocol": "tcp", "mode": "host"}]
    assert rendered["healthcheck"] == {"disable": True}
    for dropped in ("build", "profiles", "depends_on", "cpuset", "memswap_limit"):
        assert dropped not in rendered
    assert "${" not in json.dumps(rendered)


def test_the_stack_file_puts_every_service_on_one_attachable_overlay(go_service: dict) -> None:
    infra = compose.document([])[0]["services"]
    services = {"redis": swarm_service(infra["redis"], {}, image="sha256:r", role="infra"),
                "go": swarm_service(go_service, {}, image="sha256:g", role="server")}
    document = stack_document(services)
    assert document["networks"] == {"bench": {"driver": "overlay", "attachable": True}}
    assert all(service["networks"] == ["bench"] for service in document["services"].values())
    assert "resources" not in services["redis"]["deploy"]  # the harness's services have no limits
    with pytest.raises(ValueError):
        swarm_service(go_service, {}, image="x", role="database")


def test_interpolation_takes_the_value_or_compose_s_default() -> None:
    assert interpolate("${A:-2}/${B:-x}/${C}", {"A": "4"}) == "4/x/"
    assert interpolate({"k": ["${A:-1}"]}, {}) == {"k": ["1"]}


def swarm_file(tmp_path: Path, data: object) -> Path:
    path = tmp_path / f"swarm-{len(list(tmp_path.iterdir()))}.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


NODES = [{"hostname": "s", "engine": "unix:///s.sock", "address": "10.0.0.1", "role": "server"},
         {"hostname": "i", "engine": "unix:///i.sock", "address": "10.0.0.2", "role": "infra"},
         {"hostname": "l", "engine": "unix:///l.sock", "address": "10.0.0.3", "role": "load"}]


def test_the_swarm_file_is_validated_with_one_line_each(tmp_path: Path) -> None:
    good = read_swarm_file(swarm_file(tmp_path, {"manager": "unix:///s.sock", "nodes": NODES}))
    assert [n.role for n in good.nodes] == ["server", "infra", "load"] and good.registry is None
    cases = {
        "missing": (tmp_path / "absent.json", "does not exist"),
        "bad json": (swarm_file(tmp_path, "{"), ".json"),
        "a role missing": (swarm_file(tmp_path, {"manager": "m", "nodes": NODES[:2] + [dict(NODES[0], hostname="x")]}),
                           "no node with the role load"),
        "an unknown role": (swarm_file(tmp_path, {"manager": "m", "nodes": NODES[:2] + [dict(NODES[2], role="db")]}),
                            "role"),
        "an unknown key": (swarm_file(tmp_path, {"manager": "m", "nodes": NODES, "extra": 1}), "extra"),
    }
    for case, (path, words) in cases.items():
        with pytest.raises(SwarmError) as raised:
            read_swarm_file(path)
        message = str(raised.value)
        assert words in message and "\n" not in message and "Traceback" not in message, case


def test_engine_time_with_nanoseconds_and_zones() -> None:
    assert parse_engine_time("2026-11-26T19:40:01.123456789Z") == pytest.approx(1795722001.123456789, abs=1e-6)
    assert parse_engine_time("2026-11-26T20:40:01.5+01:00") == pytest.approx(1795722001.5, abs=1e-6)
    assert parse_engine_time("2026-11-26T19:40:01Z") == pytest.approx(1795722001.0)
