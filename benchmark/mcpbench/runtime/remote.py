"""A server already running, given by its URL (`mcpbench run --url`): nothing is started, stopped, limited or
read of it — no CPU, no memory, no start time; its measurements say so (flag cgroup-not-applied, no server
resources). Whether it answers is checked as a started server's is: `initialize` until it does."""

from __future__ import annotations

from mcpbench.catalog.manifest import ServerSpec
from mcpbench.host.resources import Usage
from mcpbench.loadgen.base import StdioLaunch
from mcpbench.results.model import Image
from mcpbench.runtime.base import ServerBase, wait_until_ready


class RemoteServer(ServerBase):
    """The server at spec.url, as a running server the runner can measure (ServerBase's defaults: no process
    tree, no pid, no listening sockets, no freezer)."""

    def __init__(self, spec: ServerSpec):
        assert spec.url is not None
        self.name = spec.name
        self.url = spec.url
        self.startup_s = 0.0
        self.limits_applied = False
        self.details: Image | None = None
        self.stdio_launch: StdioLaunch | None = None

    @classmethod
    def reached(cls, spec: ServerSpec) -> RemoteServer:
        """The server once it answers `initialize` (StartError, with what came back, when it does not)."""
        server = cls(spec)
        wait_until_ready(server.url, lambda: True, spec.ready_timeout_s, lambda: "", headers=spec.headers)
        return server

    def alive(self) -> bool:
        return True  # not ours to watch: a server gone shows as failed calls, counted

    def usage(self) -> Usage | None:
        return None

    def log_tail(self, lines: int = 30) -> str:
        return ""

    def stop(self) -> None:
        pass  # not ours to stop
