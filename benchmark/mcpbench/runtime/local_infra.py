"""The workload's infrastructure: a real redis-server and the product API service, on free ports."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import redis

from mcpbench.host import processes
from mcpbench.host.paths import API_SERVICE_BIN
from mcpbench.host.ports import LOOPBACK, free_port
from mcpbench.host.resources import UsageReader, process_reader
from mcpbench.host.toolchain import which
from mcpbench.workload import seed


class InfraError(RuntimeError):
    pass


# Starts of the pair on new ports when one lost its port between being picked and being bound.
BIND_ATTEMPTS = 3


def _wait(check, what: str, process: processes.ManagedProcess, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not process.alive():
            raise InfraError(f"{what} exited during start-up:\n{process.log_tail()}")
        try:
            if check():
                return
        except (OSError, redis.RedisError, httpx.HTTPError):
            pass
        time.sleep(0.05)
    raise InfraError(f"{what} was not ready within {timeout_s:g} s:\n{process.log_tail()}")


@dataclass
class Infra:
    """Redis and the API service as local processes (the local runtime's infrastructure); Redis left out when
    nothing of the run uses it (the API service then only holds the harness's canned endpoint)."""

    redis_process: processes.ManagedProcess | None
    api_process: processes.ManagedProcess
    redis_url: str | None
    api_url: str

    # Locally the server reaches Redis and the API service at the same addresses as the orchestrator.
    @property
    def server_redis_url(self) -> str | None:
        return self.redis_url

    @property
    def server_api_url(self) -> str:
        return self.api_url

    def readers(self) -> dict[str, UsageReader]:
        redis_reader = {"redis": process_reader(self.redis_process.pid)} if self.redis_process else {}
        return {**redis_reader, "api": process_reader(self.api_process.pid)}

    @classmethod
    def start(cls, log_dir: Path, cpus: tuple[int, ...] | None, with_redis: bool = True) -> Infra:
        """Redis and the API service started and answering. A port is free when it is picked, not yet when the
        process binds it: another program's connection may take it in between, so a start that lost its port that
        way is made again on new ones."""
        for attempt in range(1, BIND_ATTEMPTS + 1):
            try:
                return cls._start(log_dir, cpus, with_redis)
            except InfraError as exc:
                if attempt == BIND_ATTEMPTS or "address already in use" not in str(exc).lower():
                    raise
        raise AssertionError("unreachable")

    @classmethod
    def _start(cls, log_dir: Path, cpus: tuple[int, ...] | None, with_redis: bool) -> Infra:
        redis_server = which("redis-server")
        if with_redis and not redis_server:
            raise InfraError("redis-server is not installed "
                             "(scripts/setup.sh installs it: apt-get install redis-server)")
        if not API_SERVICE_BIN.exists():
            raise InfraError(f"the API service is not built ({API_SERVICE_BIN}); run `mcpbench build`")
        log_dir.mkdir(parents=True, exist_ok=True)
        redis_port, api_port = free_port(), free_port()
        # Persistence off: the data set is re-seeded before every measurement anyway.
        redis_process = processes.spawn(
            "redis", [redis_server, "--port", str(redis_port), "--bind", LOOPBACK, "--save", "",
                      "--appendonly", "no", "--protected-mode", "no", "--maxclients", "20000",
                      "--loglevel", "warning"],
            log_path=log_dir / "redis.log", cpus=cpus) if with_redis and redis_server else None
        api_process = processes.spawn(
            "api-service", [str(API_SERVICE_BIN)], env={"HOST": LOOPBACK, "PORT": str(api_port)},
            log_path=log_dir / "api-service.log", cpus=cpus)
        infra = cls(redis_process, api_process, f"redis://{LOOPBACK}:{redis_port}" if redis_process else None,
                    f"http://{LOOPBACK}:{api_port}")
        try:
            if redis_process and infra.redis_url:
                client = redis.Redis.from_url(infra.redis_url)
                _wait(client.ping, "redis-server", redis_process)
            _wait(lambda: httpx.get(f"{infra.api_url}/health", timeout=1).status_code == 200,
                  "the API service", api_process)
        except InfraError:
            infra.stop()
            raise
        return infra

    def reset(self) -> float:
        """Flush and re-seed Redis; returns the seconds it took."""
        assert self.redis_url is not None, "started without Redis"
        return seed.reset(redis.Redis.from_url(self.redis_url))

    def stop(self) -> None:
        self.api_process.stop(grace_s=3)
        if self.redis_process:
            self.redis_process.stop(grace_s=3)
