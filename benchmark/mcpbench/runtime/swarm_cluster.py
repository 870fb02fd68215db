"""A Docker swarm as the swarm runtime sees it: only Docker endpoints, named in a swarm file (SWARM_FILE;
`scripts/swarm-lab.sh up` writes it for the one-machine lab, docs/multi-host.md says how for real VMs) — the
manager, which deploys, and every node's own engine, which the orchestrator reads container stats, logs and
clocks from and loads images into. Swarm is the stack of one run, its images and its services' addresses;
the runtime (swarm.py), the load on the load nodes (swarm_load.py) and the node agents (swarm_nodes.py) use it.

Images are the ones `mcpbench images build` made on this machine's engine, moved to each node that runs them
(`docker save` here, `docker load` there) and deployed by image id — or pushed to a registry and deployed by
digest — so every node runs the same bits. Everything deployed belongs to the stack `mcpbench-<host>-<pid>`,
removed by close(), which then checks that nothing of it is left on the manager or on any node.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal

import psutil
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mcpbench.catalog.manifest import _format_validation
from mcpbench.results.model import Record
from mcpbench.runtime.docker import StatsHub
from mcpbench.runtime.docker_compose import ComposeDoc
from mcpbench.runtime.docker_engine import DockerError, Engine, EngineDoc
from mcpbench.runtime.swarm_stack import ROLE_LABEL, STACK_LABEL, stack_document

SWARM_FILE = Path(os.environ.get("MCPBENCH_SWARM_FILE") or "/etc/mcpbench/swarm.json")
STACK_PREFIX = "mcpbench-"
OWNER_LABEL = "mcpbench.owner"  # "<orchestrator host>:<pid>": what a later run may sweep when the pid is gone
# A task scheduled but not running after this long (no node satisfies its constraints, an image missing on
# the node) has not started: its state and the scheduler's message say why.
TASK_START_S = 60
# The scheduler saying "no suitable node" this long (constraints no node meets, resources no node has left)
# is an answer: the wait ends there. Shorter spells are a node still joining or a previous task's resources
# still being released.
UNSCHEDULABLE_S = 10
# How long close() waits for the stack's containers to be gone from every node before saying what is left.
TEARDOWN_S = 60
ENDED_TASK_STATES = {"complete", "failed", "shutdown", "rejected", "orphaned", "remove"}


class SwarmError(DockerError):
    """The swarm is not usable as the swarm file describes it; the message says what to fix."""


# -- the swarm file -------------------------------------------------------------------------------------
class NodeEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    hostname: str = Field(min_length=1)
    engine: str = Field(min_length=1)   # the node's own Docker endpoint: unix://, tcp:// (TLS) or ssh://
    address: str = Field(min_length=1)  # where the orchestrator reaches its published ports
    role: Literal["server", "infra", "load"]


class SwarmFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = "swarm"
    manager: str = Field(min_length=1)
    nodes: list[NodeEntry] = Field(min_length=3)
    # Where images go when a registry moves them (HOST:PORT/PATH, every node able to pull from it); none:
    # `docker save` here, `docker load` on each node. --registry overrides it.
    registry: str | None = None


def read_swarm_file(path: Path = SWARM_FILE) -> SwarmFile:
    if not path.exists():
        raise SwarmError(f"no swarm described: {path} does not exist (`scripts/swarm-lab.sh up` makes the "
                         "one-machine lab; docs/multi-host.md says how to write it for your hosts; "
                         "MCPBENCH_SWARM_FILE names another file)")
    try:
        topology = SwarmFile.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except ValueError as exc:
        detail = _format_validation(exc) if isinstance(exc, ValidationError) else str(exc)
        raise SwarmError(f"{path}: {detail}") from None
    missing = [role for role in ("server", "infra", "load") if not any(n.role == role for n in topology.nodes)]
    if missing:
        raise SwarmError(f"{path}: no node with the role {', '.join(missing)} (each of server, infra and load "
                         "needs one)")
    return topology


@dataclass
class Node:
    """A swarm node as the runtime uses it: its own engine, its swarm id, and what run.json records."""

    entry: NodeEntry
    engine: Engine
    node_id: str
    facts: EngineDoc
    stats: StatsHub = field(init=False)

    def __post_init__(self) -> None:
        self.stats = StatsHub(self.engine)

    @property
    def name(self) -> str:
        return self.entry.hostname

    def clock_offset_s(self) -> tuple[float, float]:
        """(the node's clock minus ours, the round trip it was measured over), from the engine's SystemTime
        taken at the midpoint of the request: NTP's estimate with one exchange, good to ± half the round trip."""
        sent = time.time()
        reported = self.engine.system_time()
        received = time.time()
        theirs = parse_engine_time(reported)
        return theirs - (sent + received) / 2, received - sent


def parse_engine_time(text: str) -> float:
    """RFC 3339 with nanoseconds ("2026-11-26T19:40:01.123456789Z") as epoch seconds (datetime takes at
    most microseconds, so the fraction is added apart)."""
    match = _RFC3339.match(text.strip())
    if not match:
        raise DockerError(f"the engine's SystemTime {text!r} is not RFC 3339")
    whole, fraction, zone = match.groups()
    moment = datetime.fromisoformat(whole + ("+00:00" if zone == "Z" else zone))
    return moment.timestamp() + (float(f"0.{fraction}") if fraction else 0.0)


_RFC3339 = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$")


def connect(topology: SwarmFile) -> tuple[Engine, list[Node]]:
    """The manager and every node, each checked: its engine answers, it is in this swarm, Ready and active,
    and labelled with the role the file gives it."""
    try:
        manager = Engine(base_url=topology.manager)
    except DockerError as exc:
        raise SwarmError(f"the swarm manager: {exc}") from None
    swarm = (manager.info().get("Swarm") or {})
    if not swarm.get("ControlAvailable"):
        manager.close()
        raise SwarmError(f"{topology.manager} is not a swarm manager (its swarm state: "
                         f"{swarm.get('LocalNodeState') or 'inactive'}); `docker swarm init` there")
    known = {node["ID"]: node for node in manager.nodes()}
    nodes: list[Node] = []
    for entry in topology.nodes:
        try:
            engine = Engine(base_url=entry.engine)
        except DockerError as exc:
            raise SwarmError(f"node {entry.hostname}: {exc}") from None
        info = engine.info()
        node_id = (info.get("Swarm") or {}).get("NodeID") or ""
        seen = known.get(node_id)
        if not seen:
            raise SwarmError(f"node {entry.hostname} ({entry.engine}) is not in the manager's swarm")
        status = (seen.get("Status") or {}).get("State")
        availability = (seen.get("Spec") or {}).get("Availability")
        label = ((seen.get("Spec") or {}).get("Labels") or {}).get(ROLE_LABEL)
        if status != "ready" or availability != "active":
            raise SwarmError(f"node {entry.hostname} is {status}/{availability}, not ready/active")
        if label != entry.role:
            raise SwarmError(f"node {entry.hostname} is labelled {ROLE_LABEL}={label}, the swarm file says "
                             f"{entry.role} (`docker node update --label-add {ROLE_LABEL}={entry.role} {node_id}`)")
        version = engine.server_version
        nodes.append(Node(entry, engine, node_id, {
            "hostname": entry.hostname, "role": entry.role, "node_id": node_id, "address": entry.address,
            "cpus": info.get("NCPU"), "memory_gb": round((info.get("MemTotal") or 0) / 2**30, 1),
            "kernel": info.get("KernelVersion"), "os": info.get("OperatingSystem"),
            "engine": version.get("Version"), "api": version.get("ApiVersion"),
            "cgroup_version": int(info.get("CgroupVersion") or 1),
            "cpu_quota": bool(info.get("CpuCfsQuota", True)), "memory_limit": bool(info.get("MemoryLimit", True))}))
    return manager, nodes


# -- a deployed service --------------------------------------------------------------------------------------
@dataclass
class Task:
    """The one task of a one-replica service, once it runs: its node and its container there."""

    service: str
    node: Node
    container_id: str


def wait_for_task(manager: Engine, service: str, nodes: dict[str, Node], timeout_s: float = TASK_START_S) -> Task:
    """The service's task running; SwarmError with swarm's own words when it fails or never starts."""
    started = time.monotonic()
    deadline = started + timeout_s
    last = "no task scheduled yet"
    while time.monotonic() < deadline:
        for task in manager.tasks(service):
            status = task.get("Status") or {}
            state = status.get("State")
            if state == "pending" and "no suitable node" in str(status.get("Err")) \
                    and time.monotonic() - started > UNSCHEDULABLE_S:
                raise SwarmError(f"the task of {service} cannot be placed: {status.get('Err')}")
            if state == "running":
                container = (status.get("ContainerStatus") or {}).get("ContainerID")
                node = nodes.get(task.get("NodeID", ""))
                if container and node:
                    return Task(service, node, container)
            if state in ENDED_TASK_STATES:
                raise SwarmError(f"the task of {service} {state}: {status.get('Err') or status.get('Message')}"
                                 + _log_tail(task, nodes))
            last = f"{state}: {status.get('Err') or status.get('Message')}"
        time.sleep(0.1)
    raise SwarmError(f"the task of {service} did not start within {timeout_s:g} s ({last})")


def _log_tail(task: EngineDoc, nodes: dict[str, Node]) -> str:
    """The last lines a task's container wrote, from its node's engine ("" when there are none to read)."""
    container = ((task.get("Status") or {}).get("ContainerStatus") or {}).get("ContainerID")
    node = nodes.get(task.get("NodeID", ""))
    if not container or not node:
        return ""
    try:
        tail = node.engine.logs(container, tail=20).rstrip()
    except DockerError:
        return ""
    return f"\n{tail}" if tail else ""


class Swarm:
    """The swarm as the orchestrator uses it: the manager and every node's engine, the stack of this run
    (`mcpbench-<host>-<pid>`), the images moved to the nodes, and where each service is reached from here and
    from inside the stack's network."""

    def __init__(self, topology: SwarmFile, local: Engine, log=print, registry: str | None = None):
        self.topology = topology
        self.local = local  # where `mcpbench images build` made the images
        self.log = log
        self.registry = (registry or topology.registry or "").rstrip("/") or None
        self.manager, self.nodes = connect(topology)
        self.by_id = {node.node_id: node for node in self.nodes}
        self.server_node = self.role_nodes("server")[0]
        self.infra_node = self.role_nodes("infra")[0]
        self.owner = f"{socket.gethostname()}:{os.getpid()}"
        self.stack = f"{STACK_PREFIX}{socket.gethostname()}-{os.getpid()}".lower()
        # tag -> run.json's image record: {"image_id", "reference"?, "nodes": [...]}
        self.shipped: dict[str, Record] = {}
        self.network_urls: dict[str, str] = {}  # an orchestrator-side base URL -> the same service in the network
        self.stack_dir: Path | None = None  # where the stack files are kept (the infrastructure's log directory)
        sweep_stale_stacks(self.manager)

    def role_nodes(self, role: str) -> list[Node]:
        return [node for node in self.nodes if node.entry.role == role]

    def ship(self, tag: str, nodes: list[Node]) -> str:
        """The reference to deploy `tag` by, so that every one of `nodes` runs exactly the image built here:
        its id, after loading it on each node that lacks it (`docker save` here, `docker load` there), or with
        a registry, its digest there after a push (the nodes pull it when swarm starts the task)."""
        local = self.local.image(tag)
        if not local:
            raise DockerError(f"the image {tag} is not built: run `mcpbench images build` (or drop --no-build)")
        image_id = local["Id"]
        record = self.shipped.setdefault(tag, {"image_id": image_id, "nodes": []})
        if self.registry:
            if "reference" not in record:
                started = time.monotonic()
                record["reference"] = self._push(image_id, tag)
                self.log(f"  pushed {tag} ({image_id[7:19]}) to {self.registry} in {time.monotonic() - started:.1f} s")
            for node in nodes:
                if node.name not in record["nodes"]:
                    record["nodes"].append(node.name)
            return record["reference"]
        for node in nodes:
            if node.engine.image(image_id) is None:
                started = time.monotonic()
                node.engine.load(self.local.save(image_id))
                # save by id carries no tag: give the node's copy its name for `docker image ls`.
                repository, _, version = tag.rpartition(":")
                node.engine.tag(image_id, repository, version)
                self.log(f"  loaded {tag} ({image_id[7:19]}) on {node.name} in {time.monotonic() - started:.1f} s")
            if node.engine.image(image_id) is None:
                raise DockerError(f"{tag} did not arrive on {node.name}")
            if node.name not in record["nodes"]:
                record["nodes"].append(node.name)
        return image_id

    def _push(self, image_id: str, tag: str) -> str:
        """The image pushed as <registry>/<name>:<tag>; its repository@digest."""
        name, _, version = tag.partition("/")[2].rpartition(":")
        repository = f"{self.registry}/{name}"
        self.local.tag(image_id, repository, version)
        digest = self.local.push(repository, version)
        return f"{repository}@{digest}"

    def deploy(self, services: dict[str, ComposeDoc], what: str) -> None:
        """Add these services to the stack (`docker stack deploy` on the manager, no pruning). The stack file
        goes in on stdin and is kept beside the infrastructure's logs (stack-<what>.json) once they exist."""
        for service in services.values():
            service.setdefault("deploy", {}).setdefault("labels", {})[OWNER_LABEL] = self.owner
        text = json.dumps(stack_document(services), indent=2) + "\n"
        if self.stack_dir is not None:
            (self.stack_dir / f"stack-{what}.json").write_text(text, encoding="utf-8")
        argv = ["docker", "--host", self.topology.manager, "stack", "deploy", "--resolve-image", "never",
                "--detach=true", "--compose-file", "-", self.stack]
        env = {k: v for k, v in os.environ.items() if k not in ("DOCKER_HOST", "DOCKER_CONTEXT")}
        try:
            done = subprocess.run(argv, input=text, capture_output=True, text=True, timeout=120, env=env)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise DockerError(f"`docker stack deploy` ({what}) failed: {exc}") from exc
        if done.returncode != 0:
            raise DockerError(f"`docker stack deploy` ({what}) failed (exit {done.returncode}): "
                              f"{(done.stderr or done.stdout).strip()[-1500:]}")

    def service_name(self, name: str) -> str:
        return f"{self.stack}_{name}"

    def remove_service(self, service: str) -> None:
        try:
            self.manager.remove_service(service)
        except DockerError:
            pass

    def published(self, task: Task, target: int) -> int:
        return task.node.engine.published_port(task.container_id, target)

    def in_network(self, url: str) -> str:
        """An orchestrator-side URL of a service as the stack's own containers reach it (the load driver)."""
        for outside, inside in self.network_urls.items():
            if url.startswith(outside):
                return inside + url[len(outside):]
        raise DockerError(f"{url} is no service of the stack {self.stack}")

    def close(self) -> list[str]:
        """The stack removed and checked gone; what to tell the user (leftovers, nodes not checked)."""
        notes = []
        try:
            leftovers, unreachable = remove_stack(self.manager, self.nodes, self.stack)
            if leftovers:
                notes.append(f"left deployed after {TEARDOWN_S} s: {', '.join(leftovers)}")
            if unreachable:
                # Its engine is gone; swarm removes the node's tasks once it is back (the services are gone).
                notes.append(f"node(s) {', '.join(unreachable)} did not answer: their containers were not checked")
        except DockerError as exc:
            notes.append(f"could not check the stack {self.stack} was removed: {exc}")
        finally:
            for node in self.nodes:
                node.stats.close()
                node.engine.close()
            self.manager.close()
        return notes


def stack_objects(manager: Engine, nodes: list[Node], stack: str) -> tuple[list[str], list[str]]:
    """What of the stack still exists — services, networks, configs and secrets on the manager, task
    containers on any node ("kind name" each) — and the nodes that could not be asked (their engine is gone)."""
    labels = {STACK_LABEL: stack}
    found = [f"service {s['Spec']['Name']}" for s in manager.services(labels)]
    found += [f"network {n['Name']}" for n in manager.networks(labels)]
    found += [f"config/secret {c['Spec']['Name']}" for c in manager.configs_and_secrets(labels)]
    unreachable = []
    for node in nodes:
        try:
            containers = node.engine.containers({STACK_LABEL: stack})
        except DockerError:
            unreachable.append(node.name)
            continue
        found += [f"container {c['Names'][0].lstrip('/')} on {node.name}" for c in containers]
    return found, unreachable


def remove_stack(manager: Engine, nodes: list[Node], stack: str) -> tuple[list[str], list[str]]:
    """The stack removed (services first, then its networks, configs, secrets) and checked gone everywhere;
    what is still there after TEARDOWN_S, and the nodes that could not be checked."""
    labels = {STACK_LABEL: stack}
    for service in manager.services(labels):
        manager.remove_service(service["ID"])
    deadline = time.monotonic() + TEARDOWN_S
    while True:
        # A network is removable once its tasks' containers are gone on every node.
        for network in manager.networks(labels):
            try:
                manager.remove_network(network["Id"])
            except DockerError:
                pass  # removed meanwhile (the manager may say so with a 500), or still in use: the check says
        left, unreachable = stack_objects(manager, nodes, stack)
        if not left or time.monotonic() > deadline:
            return left, unreachable
        time.sleep(0.25)


def sweep_stale_stacks(manager: Engine) -> list[str]:
    """Remove the stacks of orchestrators on this machine that died without a word (SIGKILL)."""
    host = socket.gethostname()
    swept = set()
    for service in manager.services({OWNER_LABEL: ""}):
        owner = ((service.get("Spec") or {}).get("Labels") or {}).get(OWNER_LABEL, "")
        owner_host, _, pid = owner.rpartition(":")
        if owner_host == host and pid.isdigit() and not psutil.pid_exists(int(pid)):
            manager.remove_service(service["ID"])
            swept.add(((service.get("Spec") or {}).get("Labels") or {}).get(STACK_LABEL, ""))
    for stack in swept:
        for network in manager.networks({STACK_LABEL: stack}):
            manager.remove_network(network["Id"])
    return sorted(swept)
