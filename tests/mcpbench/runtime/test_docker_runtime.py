"""The docker runtime's decisions: on a stand-in engine (no Docker needed) the limits, messages and env;
the sweep of a dead run's project also on the real engine."""

from __future__ import annotations

import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from mcpbench.runtime import docker_compose as compose
from mcpbench.host.profile import resource_profile
from mcpbench.runtime.docker_engine import DockerError
from mcpbench.runtime import docker as docker_runtime


class FakeEngine:
    def __init__(self, containers=(), images=None, inspect=None):
        self._containers = list(containers)
        self._images = images or {}
        self._inspect = inspect or {}
        self.removed: list[str] = []
        self.removed_networks: list[str] = []

    def containers(self, labels=None, all_=True):
        return self._containers

    def remove(self, ref):
        self.removed.append(ref)

    def image(self, ref):
        return self._images.get(ref)

    def container(self, ref):
        return self._inspect.get(ref)

    def logs(self, ref, tail=None):
        return "java.lang.OutOfMemoryError: Java heap space\n"

    def remove_network(self, name):
        self.removed_networks.append(name)


def dead_pid() -> int:
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


def test_projects_of_dead_orchestrators_are_swept_and_live_ones_kept() -> None:
    import os

    dead = dead_pid()
    engine = FakeEngine([
        {"Id": "a", "Labels": {docker_runtime.PROJECT_LABEL: f"mcpbench-{dead}"}},
        {"Id": "b", "Labels": {docker_runtime.PROJECT_LABEL: f"mcpbench-{os.getpid()}"}},
        {"Id": "c", "Labels": {docker_runtime.PROJECT_LABEL: "someone-elses"}},
    ])
    assert docker_runtime.sweep_stale_projects(engine) == [f"mcpbench-{dead}"]
    assert engine.removed == ["a"]
    assert engine.removed_networks == [f"mcpbench-{dead}_bench"]


@pytest.mark.docker
def test_a_dead_runs_project_is_swept_from_the_real_engine() -> None:
    """Containers and network of a project whose orchestrator is gone go; a live one's stay."""
    import os

    from mcpbench.runtime.docker_compose import BASE_IMAGE
    from mcpbench.runtime.docker_engine import Engine

    try:
        engine = Engine()
    except DockerError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"the docker tests must run in CI, but: {exc}")
        pytest.skip(str(exc))
    image = os.environ.get("MCPBENCH_BASE_IMAGE") or BASE_IMAGE
    if not engine.image(image):
        engine.close()
        pytest.skip(f"{image} is not built (docker/build-base.sh)")
    dead, live = f"mcpbench-{dead_pid()}", f"mcpbench-{os.getpid()}"
    created = []
    try:
        for project in (dead, live):
            engine.client.networks.create(f"{project}_bench", labels={docker_runtime.PROJECT_LABEL: project})
            created.append(engine.client.containers.create(
                image, ["true"], labels={docker_runtime.PROJECT_LABEL: project}, network=f"{project}_bench").id)
        assert dead in docker_runtime.sweep_stale_projects(engine)
        assert engine.container(created[0]) is None and engine.container(created[1]) is not None
        assert not engine.client.networks.list(names=[f"{dead}_bench"])
        assert engine.client.networks.list(names=[f"{live}_bench"])
    finally:
        for ref in created:
            engine.remove(ref)
        for project in (dead, live):
            engine.remove_network(f"{project}_bench")
        engine.close()


def test_image_details_separate_the_shared_base_from_the_servers_own_layers() -> None:
    engine = FakeEngine(images={
        "mcpbench/base:trixie": {"Id": "sha256:base", "Size": 89_800_000, "RootFS": {"Layers": ["l1", "l2"]}},
        "mcpbench/go:latest": {"Id": "sha256:go", "Size": 101_300_000, "Created": "2026-11-21T20:00:00Z",
                               "RootFS": {"Layers": ["l1", "l2", "l3"]}},
        "mcpbench/odd:latest": {"Id": "sha256:odd", "Size": 50_000_000, "RootFS": {"Layers": ["x"]}},
    })
    details = docker_runtime.image_details(engine, "mcpbench/go:latest")
    assert details.image_size_mb == 101.3 and details.image_own_layers_mb == 11.5
    assert details.base_image_id == "sha256:base"
    assert docker_runtime.image_details(engine, "mcpbench/odd:latest").image_own_layers_mb is None


def bare_runtime(profile, engine) -> docker_runtime.DockerRuntime:
    runtime = object.__new__(docker_runtime.DockerRuntime)
    runtime.profile = profile
    runtime.engine = engine
    runtime.limits_supported = True
    return runtime


def test_limits_applied_only_when_the_container_has_the_profiles_limits() -> None:
    profile = resource_profile(2.0, 2048, cores=2)  # scaled to 1 CPU on 2 cores, pinned to CPU 1
    good = {"HostConfig": {"NanoCpus": 1_000_000_000, "Memory": 2048 * 2**20, "CpusetCpus": "1"}}
    engine = FakeEngine(inspect={"good": good, "unpinned": {"HostConfig": {**good["HostConfig"], "CpusetCpus": ""}}})
    runtime = bare_runtime(profile, engine)
    assert runtime._limits_applied("good")
    assert not runtime._limits_applied("unpinned")
    runtime.limits_supported = False  # the daemon said it cannot enforce them
    assert not runtime._limits_applied("good")


def test_containers_get_only_the_contract_variables_the_compose_file_gives_them() -> None:
    profile = resource_profile(2.0, 2048, cores=2)
    runtime = bare_runtime(profile, FakeEngine())
    infra = docker_runtime.ContainerInfra  # its class attributes: the addresses inside the project network
    spec = SimpleNamespace(name="java-spring", info=SimpleNamespace(requires=["mvn-that-is-not-here"], jdk=99))
    env = runtime.server_environment(spec, infra)  # no mvn, no JDK needed
    assert env == {"REDIS_URL": "redis://redis:6379", "API_SERVICE_URL": "http://api:8080",
                   "SERVER_TYPE": "java-spring", "CPU_LIMIT": "1", "MEMORY_LIMIT_MB": "2048"}
    compose_env = compose.contract_environment("java-spring")
    interpolated = {"${MCPBENCH_CPUS:-%s}" % compose.DEFAULT_CPUS: env["CPU_LIMIT"],
                    "${MCPBENCH_MEMORY_MB:-%s}" % compose.DEFAULT_MEMORY_MB: env["MEMORY_LIMIT_MB"]}
    # Where it listens is the compose file's own: the container's port, on every interface of its network
    # namespace (the host publishes it on 127.0.0.1 only).
    assert compose_env["PORT"] == str(compose.CONTAINER_PORT) and compose_env["HOST"] == "0.0.0.0"
    # Whom it answers is too: the loopback names (the published port) and its service name in the network.
    assert compose_env["ALLOWED_HOSTS"] == "localhost,127.0.0.1,[::1],java-spring"
    assert {k: interpolated.get(v, v) for k, v in compose_env.items() if k not in ("PORT", "HOST", "ALLOWED_HOSTS")} == env


def test_an_oom_killed_container_says_so() -> None:
    engine = FakeEngine(inspect={"c": {"State": {"Running": False, "ExitCode": 137, "OOMKilled": True}}})
    container = docker_runtime.Container(engine, docker_runtime.StatsHub(engine), "c")
    server = docker_runtime.ContainerServer("s", container, Path("server.log"), 256, lambda: None)
    tail = server.log_tail()
    assert "OutOfMemoryError" in tail and "exited with code 137" in tail and "OOM-killed" in tail and "256 MiB" in tail


def test_no_engine_and_no_set_up_allowed_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/docker.sock")
    monkeypatch.setenv("MCPBENCH_NO_ENGINE_SETUP", "1")
    with pytest.raises(DockerError, match="no Docker daemon.*setup-engine.sh"):
        docker_runtime.ensure_engine()
