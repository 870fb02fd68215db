"""The Engine API client's arithmetic and plumbing, on recorded stats and fake sockets (no Docker needed)."""

from __future__ import annotations

import io
import json
import socket
import struct
import tarfile
import threading
from pathlib import Path

import pytest

from mcpbench import docker_engine
from mcpbench.docker_engine import DockerError, Engine, cpu_percent, demux_logs, memory_usage, usage_from_stats
from mcpbench.resources import Sampler

FIXTURES = Path(__file__).parent / "docker_fixtures"


def stats(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


def test_memory_as_docker_stats_computes_it_on_cgroup_v1() -> None:
    reading = stats("stats-cgroup-v1.json")  # recorded from Docker 20.10 on cgroup v1
    memory = reading["memory_stats"]
    assert memory_usage(memory) == memory["usage"] - memory["stats"]["total_inactive_file"]
    changed = {**memory, "stats": {**memory["stats"], "total_inactive_file": 4096, "inactive_file": 999}}
    assert memory_usage(changed) == memory["usage"] - 4096  # v1: the hierarchical total, not the local one


def test_memory_as_docker_stats_computes_it_on_cgroup_v2() -> None:
    reading = stats("stats-cgroup-v2.json")
    assert memory_usage(reading["memory_stats"]) == 52428800 - 12582912


def test_inactive_file_larger_than_usage_is_not_subtracted() -> None:
    assert memory_usage({"usage": 100, "stats": {"inactive_file": 500}}) == 100
    assert memory_usage({"usage": 100}) == 100
    assert memory_usage({}) is None


def test_usage_is_cumulative_cpu_ns_and_memory() -> None:
    usage = usage_from_stats(stats("stats-cgroup-v2.json"))
    assert usage is not None and usage.cpu_ns == 2345678000 and usage.memory_bytes == 52428800 - 12582912
    assert usage_from_stats({"cpu_stats": {}, "memory_stats": {"usage": 1}}) is None  # a stopped container


def test_cpu_percent_is_docker_stats_formula() -> None:
    before = {"cpu_stats": {"cpu_usage": {"total_usage": 1_000_000_000}, "system_cpu_usage": 10_000_000_000,
                            "online_cpus": 2}}
    after = {"cpu_stats": {"cpu_usage": {"total_usage": 1_500_000_000}, "system_cpu_usage": 12_000_000_000,
                           "online_cpus": 2}}
    # 0.5 s of CPU in 1 s of wall time (2 s of system time over 2 CPUs) = 50 % of one core, as docker shows it
    assert cpu_percent(before, after) == pytest.approx(50.0)
    assert cpu_percent(after, after) == 0.0


def test_the_sampler_turns_cumulative_cpu_into_docker_stats_percent() -> None:
    readings = iter([docker_engine.Usage(0, 10 * 2**20), docker_engine.Usage(500_000_000, 12 * 2**20)])
    sampler = Sampler({"server": lambda: next(readings, None)}, interval_s=0.05)
    sampler.start()
    import time

    time.sleep(0.3)
    samples = sampler.stop()
    assert samples and samples[0].mem_mb == pytest.approx(12.0)
    assert samples[0].cpu_pct > 100  # 0.5 s of CPU in ~0.05 s


def test_logs_are_demultiplexed() -> None:
    frame = lambda stream, text: struct.pack(">BxxxI", stream, len(text)) + text  # noqa: E731
    raw = frame(1, b"listening on :8080\n") + frame(2, b"warn: x\n") + frame(1, b"ok\n")
    assert demux_logs(raw) == "listening on :8080\nwarn: x\nok\n"
    assert demux_logs(b"plain tty output\n") == "plain tty output\n"


@pytest.mark.parametrize("path, ignored", [
    ("node_modules/x/index.js", True), ("dist/server.js", True), ("src/server.ts", False),
    ("package-lock.json", False), ("target/release/x", True), ("a/b/c.log", True), ("keep.log", False),
    ("src/__pycache__/m.pyc", True),
])
def test_dockerignore_semantics(path: str, ignored: bool) -> None:
    patterns = ["node_modules", "dist/", "target", "**/*.log", "!keep.log", "**/__pycache__"]
    assert docker_engine._ignored(path, patterns) is ignored


def test_allow_list_dockerignore(tmp_path: Path) -> None:
    (tmp_path / ".dockerignore").write_text("# only sources\n*\n!go.mod\n!go.sum\n!*.go\n")
    for name in ("go.mod", "go.sum", "main.go", "README.md", "bin/server", "Dockerfile"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(name)
    body = docker_engine._context_tar(tmp_path, {"Dockerfile.extra": b"FROM x\n"})
    with tarfile.open(fileobj=io.BytesIO(body)) as tar:
        names = sorted(tar.getnames())
    # The Dockerfile and .dockerignore always go (docker does the same); ignored files never do.
    assert names == [".dockerignore", "Dockerfile", "Dockerfile.extra", "go.mod", "go.sum", "main.go"]


def test_no_daemon_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DockerError, match="no Docker daemon.*setup-engine.sh"):
        Engine(str(tmp_path / "docker.sock"))


def test_tcp_docker_host_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "tcp://10.0.0.1:2375")
    with pytest.raises(DockerError, match="not a unix socket"):
        Engine()


class FakeDaemon:
    """A unix-socket HTTP server answering canned Engine API replies."""

    def __init__(self, path: Path, routes: dict[str, tuple[int, object]]):
        self.path = path
        self.routes = routes
        self.requests: list[str] = []
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(path))
        self.sock.listen(8)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            buffer = b""
            while True:
                while b"\r\n\r\n" not in buffer:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    buffer += chunk
                head, buffer = buffer.split(b"\r\n\r\n", 1)
                request_line = head.split(b"\r\n")[0].decode()
                method, target, _ = request_line.split(" ")
                self.requests.append(f"{method} {target}")
                path = target.split("?")[0]
                status, body = next(((s, b) for route, (s, b) in self.routes.items() if path.endswith(route)),
                                    (404, {"message": "page not found"}))
                data = json.dumps(body).encode()
                conn.sendall(f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n"
                             f"Content-Length: {len(data)}\r\n\r\n".encode() + data)

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def short_tmp():
    import tempfile

    with tempfile.TemporaryDirectory(prefix="dk") as directory:  # unix socket paths must be short
        yield Path(directory)


def test_engine_speaks_the_daemons_api_version_and_reads_one_shot_stats(short_tmp: Path) -> None:
    daemon = FakeDaemon(short_tmp / "d.sock", {
        "/version": (200, {"Version": "20.10.24", "ApiVersion": "1.41"}),
        "/containers/abc/stats": (200, stats("stats-cgroup-v1.json")),
        "/containers/gone/json": (404, {"message": "No such container: gone"}),
        "/containers/abc/start": (500, {"message": "cannot start: port is already allocated"}),
    })
    try:
        engine = Engine(str(short_tmp / "d.sock"))
        assert engine.api == "v1.41"
        usage = engine.usage("abc")
        assert usage is not None and usage.cpu_ns == 150980994
        assert any("one-shot=true" in r and "stream=false" in r for r in daemon.requests)
        assert engine.container("gone") is None
        with pytest.raises(DockerError, match="500 cannot start: port is already allocated"):
            engine.start("abc")
        engine.close()
    finally:
        daemon.close()


def test_an_engine_older_than_20_10_is_refused(short_tmp: Path) -> None:
    daemon = FakeDaemon(short_tmp / "d.sock", {"/version": (200, {"Version": "19.03", "ApiVersion": "1.40"})})
    try:
        with pytest.raises(DockerError, match="needs 1.41"):
            Engine(str(short_tmp / "d.sock"))
    finally:
        daemon.close()
