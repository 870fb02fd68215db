"""Watching Redis and the API service while a load runs: a measurement taken while either was down or
not answering measures the infrastructure's failure, not the server, and must not be recorded as ok."""

from __future__ import annotations

import threading

import httpx
import redis

# How long one health check may take, and how many in a row may fail before the infra counts as down:
# one slow answer under full load is not a death, two in a row (2+ s without an answer) are.
CHECK_TIMEOUT_S = 2.0
FAILURES_IN_A_ROW = 2
INTERVAL_S = 1.0


class InfraWatch:
    """Use as a context manager around the load. It watches what it is given a URL of: nothing, and it never finds
    a problem, in a run that started no infrastructure; the API service alone where Redis was not started."""

    def __init__(self, redis_url: str | None, api_url: str | None):
        self.redis_url = redis_url
        self.api_url = api_url
        self.problem: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="infra-watch", daemon=True)

    def __enter__(self) -> InfraWatch:
        if self.redis_url is not None or self.api_url is not None:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=CHECK_TIMEOUT_S * 2 + 1)

    def _check(self, client: redis.Redis | None, http: httpx.Client) -> str | None:
        try:
            if client is not None:
                client.ping()
        except redis.RedisError as exc:
            return f"Redis stopped answering ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
        if self.api_url is None:
            return None
        try:
            status = http.get(f"{self.api_url}/health").status_code
        except httpx.HTTPError as exc:
            return f"the API service stopped answering ({type(exc).__name__})"
        return None if status == 200 else f"the API service answered /health with HTTP {status}"

    def _loop(self) -> None:
        client = redis.Redis.from_url(self.redis_url, socket_timeout=CHECK_TIMEOUT_S,
                                      socket_connect_timeout=CHECK_TIMEOUT_S) if self.redis_url else None
        failures = 0
        with httpx.Client(timeout=CHECK_TIMEOUT_S) as http:
            while not self._stop.wait(INTERVAL_S):
                problem = self._check(client, http)
                failures = failures + 1 if problem else 0
                if problem and failures >= FAILURES_IN_A_ROW:
                    self.problem = problem
                    return
        if client is not None:
            client.close()
