"""The infra watch notices Redis or the API service dying while a load runs (real processes)."""

from __future__ import annotations

import shutil
import signal
import time
from pathlib import Path

import pytest

from mcpbench.runtime.local_infra import Infra
from mcpbench.host.infrawatch import InfraWatch


@pytest.fixture
def own_infra(api_service_built: None, tmp_path: Path):
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed")
    running = Infra.start(tmp_path / "infra", None)
    try:
        yield running
    finally:
        # only this test's own infra: processes.stop_all() would also stop the session's shared Redis and API
        running.stop()


def _wait_for_problem(watch: InfraWatch, seconds: float = 10) -> str | None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and watch.problem is None:
        time.sleep(0.1)
    return watch.problem


@pytest.mark.parametrize("victim, said", [("redis", "Redis"), ("api", "API service")])
def test_a_killed_component_is_reported_and_a_healthy_one_is_not(own_infra: Infra, victim: str, said: str) -> None:
    with InfraWatch(own_infra.redis_url, own_infra.api_url) as watch:
        time.sleep(2.5)
        assert watch.problem is None
        process = own_infra.redis_process if victim == "redis" else own_infra.api_process
        process.popen.send_signal(signal.SIGKILL)
        problem = _wait_for_problem(watch)
    assert problem is not None and said in problem


def test_redis_and_the_api_service_listen_on_loopback_only(own_infra: Infra) -> None:
    from mcpbench.host.ports import is_loopback, listening

    for process in (own_infra.redis_process, own_infra.api_process):
        addresses = listening(process.pid)
        assert addresses and all(is_loopback(a) for a in addresses), (process.name, addresses)


def test_a_listener_on_every_interface_is_not_loopback() -> None:
    from mcpbench.host.ports import is_loopback

    assert is_loopback("127.0.0.1:80") and is_loopback("::1:80") and is_loopback("::ffff:127.0.0.1:80")
    assert not is_loopback("0.0.0.0:80") and not is_loopback(":::80") and not is_loopback("::ffff:10.0.0.2:80")
