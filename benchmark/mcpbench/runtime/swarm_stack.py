"""The compose model rendered for swarm mode: the services of docker-compose.yml (docker_compose.document, the
one model of how each server, Redis and the API service run as containers), turned into a stack file that
`docker stack deploy` takes — placed by role, limited by the resource profile, every image pinned to the id
the orchestrator moved to the nodes. Nothing here decides how a server runs; only where and on what.

What changes from the compose rendering, and why:
- `build`, `profiles`, `depends_on`: not swarm's (images are built once and moved; the runtime orders starts).
- `cpuset`, `memswap_limit`: swarm services have neither; a node's cores are the server's by placement (the
  server runs alone on its node), and the swarm lab's and cloud VMs' nodes have no swap.
- `ports`: host mode on the node that runs the task, port chosen by the engine. This kernel, like many
  hosts without the ip_vs module, cannot run swarm's routing mesh or virtual IPs (IPVS), so every service
  has DNS round-robin endpoints (`endpoint_mode: dnsrr`) and nothing uses the ingress network.
- `healthcheck`: disabled, as in the docker runtime's runs (no probe inside a measured container).
- `deploy`: one replica, never restarted (a server that crashed mid-test is a failure to see, not to
  hide), placed by `node.labels.mcpbench.role`, with the profile as limits and reservations.
"""

from __future__ import annotations

import re
from typing import Any

from mcpbench.runtime.docker_compose import ComposeDoc

ROLE_LABEL = "mcpbench.role"
STACK_LABEL = "com.docker.stack.namespace"  # what `docker stack deploy` labels everything of a stack with
ROLES = ("server", "infra", "load")
STACK_VERSION = "3.9"
NETWORK = "bench"

_VARIABLE = re.compile(r"\$\{([A-Z0-9_]+)(?::-([^}]*))?\}")
_DROPPED = ("build", "profiles", "depends_on", "cpuset", "memswap_limit", "ports", "healthcheck", "deploy")


def interpolate(value: Any, variables: dict[str, str]) -> Any:
    """Compose's `${NAME:-default}` resolved from `variables` (else the default), in every string."""
    if isinstance(value, str):
        return _VARIABLE.sub(lambda m: variables.get(m.group(1)) or (m.group(2) or ""), value)
    if isinstance(value, dict):
        return {k: interpolate(v, variables) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, variables) for v in value]
    return value


def container_port(compose_ports: list[str]) -> int:
    """The container side of compose's "127.0.0.1:${…}:8080"."""
    return int(str(compose_ports[0]).rsplit(":", 1)[1])


def swarm_service(compose_service: ComposeDoc, variables: dict[str, str], *, image: str, role: str,
                  node_id: str | None = None, cpus: float | None = None, memory_mb: int | None = None,
                  environment: dict[str, str] | None = None, command: list[str] | None = None,
                  publish: bool = True, labels: dict[str, str] | None = None) -> ComposeDoc:
    """One compose service as a swarm service: placed on a node of `role` (that very node with node_id),
    limited to cpus/memory_mb (reserved too, so the scheduler never shares the node's share)."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}")
    service = {k: v for k, v in interpolate(compose_service, variables).items() if k not in _DROPPED}
    service["image"] = image
    if command is not None:
        service["command"] = command
    if environment:
        service["environment"] = {**service.get("environment", {}), **environment}
    if publish and compose_service.get("ports"):
        service["ports"] = [{"target": container_port(compose_service["ports"]), "protocol": "tcp", "mode": "host"}]
    service["networks"] = [NETWORK]
    service["healthcheck"] = {"disable": True}
    constraints = [f"node.labels.{ROLE_LABEL}=={role}"]
    if node_id:
        constraints.append(f"node.id=={node_id}")
    deploy: ComposeDoc = {
        "mode": "replicated", "replicas": 1, "endpoint_mode": "dnsrr",
        "restart_policy": {"condition": "none"},
        "placement": {"constraints": constraints},
    }
    if labels:
        deploy["labels"] = labels
    if cpus is not None and memory_mb is not None:
        limits = {"cpus": f"{cpus:g}", "memory": f"{memory_mb}M"}
        deploy["resources"] = {"limits": limits, "reservations": dict(limits)}
    service["deploy"] = deploy
    return service


def stack_document(services: dict[str, ComposeDoc]) -> ComposeDoc:
    """A stack file (compose format 3.9) of these swarm services on the stack's overlay network. The network
    is attachable so a one-off container (a probe) can join it."""
    return {"version": STACK_VERSION, "services": services,
            "networks": {NETWORK: {"driver": "overlay", "attachable": True}}}
