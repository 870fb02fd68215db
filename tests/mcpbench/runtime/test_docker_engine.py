"""mcpbench.docker_engine on the real engine: errors, builds (.dockerignore, an outside Dockerfile, target,
args, labels, a failing build), a container's life (start, port, logs, stats, stop, remove) and the stats
arithmetic — the last on stats documents recorded from a real container (tests/fixtures/docker-stats/).

No fakes: where no engine can be reached the engine tests skip with the reason, except under CI (CI=true),
where they fail. Builds and containers need the base image (built by docker/build-base.sh when missing).
The engine tests are marked docker: scripts/test.sh runs them after tests/docker has set the engine up.
Quick subset, no images built and no container run: -k 'not build and not container'.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from docker.errors import DockerException

from mcpbench.runtime.docker_compose import BASE_IMAGE
from mcpbench.runtime.docker_engine import DockerError, Engine, compose_command, compose_version, memory_usage, usage_from_stats
from mcpbench.host.resources import Sampler

RECORDED = Path(__file__).parents[2] / "fixtures" / "docker-stats"
TEST_LABEL = "mcpbench.test"
TAG = f"mcpbench-test/docker-engine-{os.getpid()}"


def recorded(name: str) -> dict:
    return json.loads((RECORDED / name).read_text())


def ns(timestamp: str) -> int:
    """An Engine API timestamp (RFC 3339, nanoseconds) as ns since the epoch; year 1 is far below zero."""
    from datetime import UTC, datetime

    whole, _, fraction = timestamp.rstrip("Z").partition(".")
    seconds = datetime.fromisoformat(whole).replace(tzinfo=UTC).timestamp()
    return int(seconds) * 10**9 + int((fraction + "000000000")[:9])


def cpu_delta(reading: dict) -> int:
    return reading["cpu_stats"]["cpu_usage"]["total_usage"] - reading["precpu_stats"]["cpu_usage"]["total_usage"]


# -- the arithmetic, on recorded readings -------------------------------------------------------------------
def test_memory_is_usage_minus_inactive_file_as_docker_stats_computes_it_on_cgroup_v1() -> None:
    memory = recorded("one-shot-cgroup-v1.json")["memory_stats"]
    assert memory["stats"]["total_inactive_file"] > 0  # the recording has page cache to subtract
    assert memory_usage(memory) == memory["usage"] - memory["stats"]["total_inactive_file"]
    changed = {**memory, "stats": {**memory["stats"], "total_inactive_file": 4096, "inactive_file": 999}}
    assert memory_usage(changed) == memory["usage"] - 4096  # v1: the hierarchical total, not the local one


def test_memory_on_cgroup_v2_subtracts_inactive_file() -> None:
    # Not recorded (no cgroup v2 host here): the v2 keys as the Engine API documents them.
    assert memory_usage({"usage": 52428800, "stats": {"anon": 31457280, "inactive_file": 12582912}}) \
        == 52428800 - 12582912


def test_inactive_file_larger_than_usage_is_not_subtracted() -> None:
    assert memory_usage({"usage": 100, "stats": {"inactive_file": 500}}) == 100
    assert memory_usage({"usage": 100}) == 100
    assert memory_usage({}) is None


def test_usage_is_the_cumulative_cpu_time_and_the_memory_of_a_one_shot_reading() -> None:
    reading = recorded("one-shot-cgroup-v1.json")
    usage = usage_from_stats(reading)
    assert usage is not None
    assert usage.cpu_ns == reading["cpu_stats"]["cpu_usage"]["total_usage"] > 0
    assert usage.memory_bytes == memory_usage(reading["memory_stats"])
    assert usage_from_stats({"cpu_stats": {}, "memory_stats": {}}) is None  # a stopped container's reading


def test_a_one_shot_reading_has_no_previous_half_to_compute_cpu_percent_from() -> None:
    """Why usage_from_stats keeps CPU time cumulative: the one-shot reading the runtime takes has no
    precpu_stats and no preread, so neither of Docker's CPU % formulas applies to it alone."""
    reading = recorded("one-shot-cgroup-v1.json")
    assert reading["preread"].startswith("0001-01-01")
    assert reading["precpu_stats"]["cpu_usage"]["total_usage"] == 0
    assert "system_cpu_usage" not in reading["precpu_stats"]
    # `docker stats`' formula on it: the container's CPU time against the host's since boot — not the
    # 50 % of one CPU the container was using (a 0.5-CPU quota, spinning).
    stats = reading["cpu_stats"]
    by_docker_formula = cpu_delta(reading) / stats["system_cpu_usage"] * stats["online_cpus"] * 100
    assert by_docker_formula < 10


def test_a_two_publication_reading_gives_the_same_percent_by_wall_time_and_by_system_time() -> None:
    """A plain stream=False reading (the daemon waits for a second publication) has both halves: over its
    read − preread interval the container used its 0.5-CPU quota, whichever formula computes it."""
    reading = recorded("stream-false-cgroup-v1.json")
    interval_ns = ns(reading["read"]) - ns(reading["preread"])
    assert 0.9e9 < interval_ns < 2.5e9  # the daemon publishes once a second (plus collecting time)
    by_wall = cpu_delta(reading) / interval_ns * 100
    system_delta = reading["cpu_stats"]["system_cpu_usage"] - reading["precpu_stats"]["system_cpu_usage"]
    by_system = cpu_delta(reading) / system_delta * reading["cpu_stats"]["online_cpus"] * 100
    assert by_wall == pytest.approx(50, abs=5)
    assert by_system == pytest.approx(by_wall, rel=0.1)


# -- connecting ------------------------------------------------------------------------------------------
def test_no_daemon_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/docker.sock")
    with pytest.raises(DockerError, match="no Docker daemon: .*docker.sock does not exist.*setup-engine.sh"):
        Engine()


def test_a_socket_nobody_answers_on_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with tempfile.TemporaryDirectory(prefix="dk") as directory:  # unix socket paths must be short
        path = f"{directory}/d.sock"
        stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stale.bind(path)  # bound, never listening: what a dead dockerd leaves behind
        try:
            monkeypatch.setenv("DOCKER_HOST", f"unix://{path}")
            with pytest.raises(DockerError) as error:
                Engine()
        finally:
            stale.close()
    message = str(error.value)
    assert "no Docker daemon answers" in message and "Connection refused" in message
    assert "setup-engine.sh" in message and "Traceback" not in message and "urllib3" not in message


def test_tcp_docker_host_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "tcp://10.0.0.1:2375")
    with pytest.raises(DockerError, match="not a unix socket"):
        Engine()


def cannot(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"the docker tests must run in CI, but: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def engine():
    if os.environ.get("MCPBENCH_SKIP_DOCKER"):
        pytest.skip("MCPBENCH_SKIP_DOCKER is set")
    try:
        engine = Engine()
    except DockerError as exc:
        cannot(f"no Docker engine here (bash docker/setup-engine.sh sets one up): {exc}")
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def base(engine: Engine) -> str:
    from mcpbench.runtime.docker import ensure_base

    ensure_base(engine)  # builds it with docker/build-base.sh when missing; a failure here is ours: fail
    return os.environ.get("MCPBENCH_BASE_IMAGE") or BASE_IMAGE


def cli(*args: str) -> str:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=60, check=True).stdout.strip()


@pytest.mark.docker
def test_the_engine_is_described_as_the_docker_cli_sees_it(engine: Engine) -> None:
    described = engine.describe()
    assert described["engine"] == cli("version", "--format", "{{.Server.Version}}")
    assert described["api"] == cli("version", "--format", "{{.Server.APIVersion}}")
    assert described["cpus"] == int(cli("info", "--format", "{{.NCPU}}"))
    assert described["cgroup_version"] == int(cli("info", "--format", "{{.CgroupVersion}}"))
    assert described["storage_driver"] and described["memory_gb"] > 0
    assert tuple(int(p) for p in described["api"].split(".")) >= (1, 41)


@pytest.mark.docker
def test_what_is_not_there_is_none_or_nothing_and_a_refusal_is_one_line(engine: Engine) -> None:
    missing = f"mcpbench-test-missing-{os.getpid()}"
    assert engine.container(missing) is None
    assert engine.image(f"{missing}:latest") is None
    assert engine.logs(missing) == ""
    assert engine.usage(missing) is None
    engine.stop(missing)  # already gone: nothing to do
    engine.remove(missing)
    engine.remove_network(f"{missing}_bench")
    with pytest.raises(DockerError) as error:
        engine.start(missing)
    assert str(error.value) == f"docker start {missing}: No such container: {missing}"


@pytest.mark.docker
def test_compose_v2_is_the_docker_cli_plugin() -> None:
    try:
        command = compose_command()
    except DockerError as exc:
        cannot(str(exc))
    assert command[1:] == ["compose"]
    assert (compose_version() or "").lstrip("v").startswith("2.")


# -- builds ------------------------------------------------------------------------------------------------
@pytest.fixture
def built_tags(engine: Engine):
    tags: list[str] = []
    yield tags
    for tag in tags:
        with contextlib.suppress(DockerException):  # not there: it was never built
            engine.client.images.remove(tag, force=True)


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def run_to_end(engine: Engine, image: str, timeout_s: float = 60) -> str:
    container = engine.client.containers.create(image, labels={TEST_LABEL: "docker-engine"})
    try:
        engine.start(container.id)
        deadline = time.monotonic() + timeout_s
        while ((engine.container(container.id) or {}).get("State") or {}).get("Running"):
            assert time.monotonic() < deadline, "the container did not finish"
            time.sleep(0.1)
        return engine.logs(container.id)
    finally:
        engine.remove(container.id)


@pytest.mark.docker
def test_build_sends_only_what_dockerignore_allows_with_a_dockerfile_from_outside(
        engine: Engine, base: str, built_tags: list[str], tmp_path: Path) -> None:
    context = tmp_path / "context"
    write(context, {
        # an allow-list, as every server's: the sources and lockfiles, minus caches inside them
        ".dockerignore": "# only sources\n*\n!go.mod\n!*.go\n!src/\nsrc/__pycache__/\n",
        "go.mod": "module x\n", "main.go": "package main\n", "src/a.txt": "a\n", "src/deep/b.txt": "b\n",
        "src/__pycache__/m.pyc": "x", "sub/pkg.go": "package sub\n", "README.md": "no\n", "bin/server": "no\n",
        "node_modules/x/index.js": "no\n",
    })
    dockerfile = tmp_path / "elsewhere" / "Dockerfile"  # outside the context, as docker/api-service/Dockerfile
    write(dockerfile.parent, {"Dockerfile": (
        f"ARG BASE_IMAGE={base}\n"
        "FROM ${BASE_IMAGE} AS listing\n"
        "ARG GREETING=unset\n"
        "COPY . /ctx\n"
        'RUN echo "greeting=$GREETING"\n'
        'CMD ["sh", "-c", "cd /ctx && find . -type f | sort"]\n'
        "FROM ${BASE_IMAGE} AS later\n"
        "RUN echo 'a stage after the target must not be built'; exit 1\n")})
    tag = f"{TAG}-listing:latest"
    built_tags.append(tag)
    log = io.StringIO()
    result = engine.build(context, tag, dockerfile=dockerfile, target="listing", log=log,
                          build_args={"GREETING": "hello", "BASE_IMAGE": base}, labels={TEST_LABEL: "listing"})
    assert result.image_id == engine.image(tag)["Id"]
    assert engine.image(tag)["Config"]["Labels"][TEST_LABEL] == "listing"
    assert "greeting=hello" in result.log and log.getvalue() == result.log  # written as it came
    listed = [line[2:] for line in run_to_end(engine, tag).split()]
    sent = sorted(name for name in listed if not name.startswith(".docker"))  # the carried Dockerfile
    assert sent == ["go.mod", "main.go", "src/a.txt", "src/deep/b.txt"]


@pytest.mark.docker
def test_a_failing_build_is_one_error_with_the_builds_last_lines(engine: Engine, base: str, built_tags: list[str],
                                                                 tmp_path: Path) -> None:
    write(tmp_path, {"Dockerfile": f"FROM {base}\n"
                                   "RUN echo compiling; echo 'error[E0425]: cannot find value' >&2; exit 7\n"})
    tag = f"{TAG}-broken:latest"
    built_tags.append(tag)
    log = io.StringIO()
    with pytest.raises(DockerError) as error:
        engine.build(tmp_path, tag, log=log)
    message = str(error.value)
    assert message.startswith(f"docker build {tag} failed: ") and "returned a non-zero code: 7" in message
    assert "E0425" in message and "E0425" in log.getvalue()
    assert engine.image(tag) is None
    with pytest.raises(DockerError, match=f"docker build {tag}: .*Dockerfile"):
        engine.build(tmp_path, tag, dockerfile="Dockerfile.missing")


# -- a container's life --------------------------------------------------------------------------------------
@pytest.mark.docker
def test_a_container_started_read_stopped_and_removed(engine: Engine, base: str) -> None:
    # 0.25 CPU of busy loop; a line on stdout and one on stderr; port 8080 published on loopback.
    # (The engine reads stdout and stderr from two pipes: only lines written apart keep their order.)
    script = "echo ready; sleep 0.5; echo 'warn: on stderr' >&2; while :; do :; done"
    container = engine.client.containers.create(
        base, ["sh", "-c", script], labels={TEST_LABEL: f"life-{os.getpid()}"}, nano_cpus=250_000_000,
        mem_limit="256m", ports={"8080/tcp": ("127.0.0.1", None)})
    ref = container.id
    try:
        assert [c["Id"] for c in engine.containers({TEST_LABEL: f"life-{os.getpid()}"})] == [ref]
        engine.start(ref)
        assert engine.container(ref)["State"]["Running"]
        assert 0 < engine.published_port(ref, 8080) < 65536
        with pytest.raises(DockerError, match="publishes no host port for 9999/tcp"):
            engine.published_port(ref, 9999)
        deadline = time.monotonic() + 10
        while "warn" not in engine.logs(ref) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert engine.logs(ref).splitlines() == ["ready", "warn: on stderr"]  # demultiplexed, in order
        assert engine.logs(ref, tail=1) == "warn: on stderr\n"

        first = engine.stats(ref)  # one-shot: the daemon's next publication, no previous half
        assert first["preread"].startswith("0001-01-01") and first["precpu_stats"]["cpu_usage"]["total_usage"] == 0
        second = engine.stats(ref)
        usage = usage_from_stats(second)
        assert usage is not None and usage.cpu_ns > 0 and 0 < usage.memory_bytes < 256 * 2**20
        # CPU % between two consecutive readings over their `read` timestamps: the 0.25-CPU quota
        interval_ns = ns(second["read"]) - ns(first["read"])
        assert 0.5e9 < interval_ns < 3e9
        percent = (usage.cpu_ns - usage_from_stats(first).cpu_ns) / interval_ns * 100
        assert percent == pytest.approx(25, abs=4)

        # the product's path: cumulative readings, CPU % per interval in resources.Sampler
        sampler = Sampler({"container": lambda: engine.usage(ref)}, interval_s=1.0)
        sampler.start()
        time.sleep(4.5)
        samples = sampler.stop()
        assert len(samples) >= 2
        assert all(s.cpu_pct == pytest.approx(25, abs=8) and 0 < s.mem_mb < 256 for s in samples), samples

        engine.stop(ref, grace_s=1)  # sh as PID 1 ignores SIGTERM: killed after the grace period
        state = engine.container(ref)["State"]
        assert not state["Running"] and state["ExitCode"] == 137
        assert engine.usage(ref) is None  # a stopped container has no reading
        assert "ready" in engine.logs(ref)  # still there until removed
    finally:
        engine.remove(ref)
    assert engine.container(ref) is None
    engine.remove(ref)  # twice is fine
