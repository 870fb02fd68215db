"""The local runtime's Redis and API service (runtime/local_infra.py), started for real."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from mcpbench.host import ports
from mcpbench.runtime import local_infra
from mcpbench.runtime.local_infra import Infra


def test_a_port_taken_between_its_pick_and_its_bind_is_picked_again(
        api_service_built: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # another program's socket takes the API service's port after it was picked: the start is made again
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        picks: Iterator[int] = iter([ports.free_port(), taken.getsockname()[1]])
        monkeypatch.setattr(local_infra, "free_port", lambda: next(picks, None) or ports.free_port())
        infra = Infra.start(tmp_path, None)
        try:
            assert not infra.api_url.endswith(f":{taken.getsockname()[1]}")
            assert httpx.get(f"{infra.api_url}/health", timeout=5).status_code == 200
        finally:
            infra.stop()
    assert "address already in use" in (tmp_path / "api-service.log").read_text()
