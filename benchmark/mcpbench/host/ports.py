"""Free TCP ports: asked of the kernel, never assumed; and where a process tree listens."""

from __future__ import annotations

import ipaddress
import socket

import psutil

# Where the local runtime's servers and its API service listen (the contract's HOST): nothing the benchmark
# starts on the host is reachable from another machine while it runs.
LOOPBACK = "127.0.0.1"

# The names a request to this machine's loopback carries in its Host header (the contract's ALLOWED_HOSTS,
# IPv6 in brackets as in a Host header): what a server accepts besides the names its placement adds.
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


def allowed_hosts(*names: str) -> str:
    """The contract's ALLOWED_HOSTS value: the loopback names and these (a compose service name)."""
    return ",".join((*LOOPBACK_NAMES, *names))


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


def listening(root_pid: int) -> list[str]:
    """Every TCP address the process and its descendants listen on ("127.0.0.1:43121", "::1:8080"), sorted."""
    try:
        root = psutil.Process(root_pid)
        tree = [root, *root.children(recursive=True)]
    except psutil.Error:
        return []
    found = set()
    for process in tree:
        try:
            found |= {f"{c.laddr.ip}:{c.laddr.port}" for c in process.net_connections(kind="tcp")
                      if c.status == psutil.CONN_LISTEN}
        except psutil.Error:
            continue
    return sorted(found)


def is_loopback(address: str) -> bool:
    """Whether a listening address ("0.0.0.0:80", "::1:80") is reachable from this machine only."""
    ip = ipaddress.ip_address(address.rsplit(":", 1)[0].strip("[]"))
    mapped = getattr(ip, "ipv4_mapped", None)  # a JVM's IPv4 socket reads ::ffff:127.0.0.1 (dual-stack)
    return (mapped or ip).is_loopback
