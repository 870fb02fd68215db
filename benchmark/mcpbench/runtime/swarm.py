"""The swarm runtime: the server under test, the infrastructure and the load on separate hosts of a Docker
swarm — the server alone on a node labelled mcpbench.role=server, Redis and the API service on an infra
node, the load driver on load nodes (swarm_load.py) — deployed as a stack rendered from the same compose
model as docker-compose.yml (swarm_stack.py), each node watched as the local host is (swarm_nodes.py).

The swarm itself (its endpoints, the run's stack, images moved to the nodes): swarm_cluster.py. This module is
the runtime seam's side: Redis and the API service, each server started, watched and stopped.
"""

from __future__ import annotations

import atexit
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import redis as redis_lib

from mcpbench.catalog.build import BuildOutcome
from mcpbench.catalog.manifest import ServerSpec
from mcpbench.host import cgroups
from mcpbench.host.ports import allowed_hosts
from mcpbench.host.profile import ResourceProfile
from mcpbench.host.resources import Usage
from mcpbench.runtime.base import InfraHandle, Runtime, ServerBase, StartError, infra_not_ready, wait_until_ready
from mcpbench.runtime.docker import ImageBuilder, ensure_engine, image_details
from mcpbench.runtime.docker_compose import (API_IMAGE, CONTAINER_PORT, REDIS_IMAGE, DockerConfigError,
                                             DockerUnsupported, container_plan, document)
from mcpbench.runtime.docker_engine import DockerError
from mcpbench.runtime.swarm_cluster import (SWARM_FILE, TASK_START_S, Swarm, SwarmError, Task, read_swarm_file,
                                            wait_for_task)
from mcpbench.runtime.swarm_load import SwarmDriver
from mcpbench.runtime.swarm_nodes import NodeAgents
from mcpbench.runtime.swarm_stack import container_port, swarm_service
from mcpbench.workload import seed


class SwarmServer(ServerBase):
    def __init__(self, runtime: SwarmRuntime, name: str, service: str, log_path: Path):
        self.name = name
        self.service = service
        self.log_path = log_path
        self.url = ""
        self.startup_s = 0.0
        self.limits_applied = False
        self.details: dict[str, Any] = {}
        self.task: Task | None = None
        self._runtime = runtime
        self._usage = None
        self._lock = threading.Lock()
        self._stopped = False

    def attach(self, task: Task) -> None:
        self.task = task
        self._usage = task.node.stats.reader(task.container_id)

    def _state(self) -> dict[str, Any]:
        if not self.task:
            return {}
        try:
            return (self.task.node.engine.container(self.task.container_id) or {}).get("State") or {}
        except DockerError:
            return {}

    def alive(self) -> bool:
        return bool(self._state().get("Running"))

    def usage(self) -> Usage | None:
        return None if self._stopped or not self._usage else self._usage()

    def log_tail(self, lines: int = 30) -> str:
        if not self.task:
            return ""
        try:
            text = self.task.node.engine.logs(self.task.container_id, tail=lines).rstrip()
        except DockerError as exc:
            return f"[logs unavailable: {exc}]"
        state = self._state()
        if state and not state.get("Running"):
            note = f"[container exited with code {state.get('ExitCode')}"
            if state.get("OOMKilled"):
                note += f"; OOM-killed: it used more than its memory limit of {self._runtime.profile.memory_mb} MiB"
            text += "\n" + note + "]"
        return text.strip()

    @contextmanager
    def paused(self) -> Iterator[bool]:
        """Frozen while the speed probe runs (see RunningServer.paused), by its node's engine."""
        frozen = False
        try:
            if self.task:
                try:
                    self.task.node.engine.pause(self.task.container_id)
                    frozen = True
                except DockerError:
                    pass
            yield frozen
        finally:
            if frozen and self.task:
                self.task.node.engine.unpause(self.task.container_id)

    def stop(self) -> None:
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
        if self.task:
            try:
                engine = self.task.node.engine
                engine.stop(self.task.container_id, grace_s=10)
                self.log_path.parent.mkdir(parents=True, exist_ok=True)
                self.log_path.write_text(engine.logs(self.task.container_id), encoding="utf-8")
            except (DockerError, OSError):
                pass
            self.task.node.stats.unwatch(self.task.container_id)
        self._runtime.swarm.remove_service(self.service)


class SwarmInfra:
    """Redis and the API service as services on the infra node; the servers reach them by name on the stack's
    overlay network, the orchestrator by the infra node's address and their host-mode ports."""

    server_redis_url = "redis://redis:6379"
    server_api_url = f"http://api:{CONTAINER_PORT}"

    def __init__(self, runtime: SwarmRuntime, log_dir: Path, tasks: dict[str, Task], redis_url: str, api_url: str):
        self._runtime = runtime
        self.log_dir = log_dir
        self.tasks = tasks
        self.redis_url = redis_url
        self.api_url = api_url
        self._readers = {name: task.node.stats.reader(task.container_id) for name, task in tasks.items()}
        self._stopped = False

    def reset(self) -> float:
        return seed.seed(redis_lib.Redis.from_url(self.redis_url))

    def readers(self):
        return dict(self._readers)

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        for name, task in self.tasks.items():
            try:
                (self.log_dir / ("api-service.log" if name == "api" else f"{name}.log")).write_text(
                    task.node.engine.logs(task.container_id), encoding="utf-8")
            except (DockerError, OSError):
                pass
            task.node.stats.unwatch(task.container_id)
            self._runtime.swarm.remove_service(task.service)


class SwarmRuntime(Runtime):
    name = "swarm"
    takes_registry = True

    def __init__(self, profile: ResourceProfile, log=print, swarm_file: Path | None = None,
                 registry: str | None = None):
        super().__init__(profile)
        self.log = log
        local = ensure_engine(log, need_compose=False)  # where `mcpbench images build` made the images
        self.swarm = Swarm(read_swarm_file(swarm_file or SWARM_FILE), local, log, registry)
        self.builder = ImageBuilder(local)
        self.agents: NodeAgents | None = None  # made when a measurement (or the run's record) first asks
        self._closed = False
        atexit.register(self.close)

    @classmethod
    def resource_profile(cls, cpus: float, memory_mb: int) -> ResourceProfile:
        """The server alone on its node: nothing to pin it apart from, no harness core on this machine. A node
        with fewer CPUs than asked cannot take the reservation: its task then says so and never starts."""
        return ResourceProfile(cpus, memory_mb, None, None)

    def limits_support(self) -> cgroups.Support:
        facts = self.swarm.server_node.facts
        usable = facts["cpu_quota"] and facts["memory_limit"]
        return cgroups.Support(facts["cgroup_version"], usable,
                               None if usable else f"the server node {self.swarm.server_node.name}'s engine cannot "
                                                   "enforce CPU/memory limits")

    def environment(self) -> dict[str, Any]:
        return {"swarm": self.swarm.topology.name, "manager": self.swarm.topology.manager,
                "stack": self.swarm.stack,
                "images_moved_by": f"registry {self.swarm.registry}" if self.swarm.registry else "docker save/load",
                "nodes": [node.facts for node in self.swarm.nodes], "images": self.swarm.shipped,
                "endpoint_mode": "dnsrr", "publish_mode": "host",
                "network_rtt_ms": self.agents.network_rtt_ms if self.agents else None,
                "clock_offsets_ms": {node.name: self._offset_ms(node) for node in self.swarm.nodes}}

    @staticmethod
    def _offset_ms(node) -> float | None:
        try:
            return round(node.clock_offset_s()[0] * 1000, 3)
        except DockerError:
            return None  # the node does not answer now: the measurements say where their load ran

    # -- builds: on this machine's engine, as the docker runtime's ------------------------------------------------
    def build_infra(self, log_path: Path) -> BuildOutcome:
        return self.builder.build_infra(log_path)

    def build_key(self, spec: ServerSpec) -> str:
        return spec.name

    def build_server(self, spec: ServerSpec, log_path: Path) -> BuildOutcome:
        try:
            container_plan(spec)
        except DockerUnsupported as exc:
            return BuildOutcome("skipped", 0.0, str(exc), None)
        except DockerConfigError as exc:
            return BuildOutcome("failed", 0.0, str(exc), None)
        return self.builder.build_server(spec, log_path)

    # -- infrastructure -----------------------------------------------------------------------------------------
    def start_infra(self, log_dir: Path) -> SwarmInfra:
        log_dir.mkdir(parents=True, exist_ok=True)
        self.swarm.stack_dir = log_dir
        compose = document([])[0]["services"]
        variables: dict[str, str] = {}
        node = self.swarm.infra_node
        services = {
            "redis": swarm_service(compose["redis"], variables, image=self.swarm.ship(REDIS_IMAGE, [node]),
                                   role="infra", node_id=node.node_id),
            "api": swarm_service(compose["api"], variables, image=self.swarm.ship(API_IMAGE, [node]),
                                 role="infra", node_id=node.node_id),
        }
        self.swarm.deploy(services, "infra")
        tasks = {name: wait_for_task(self.swarm.manager, self.swarm.service_name(name), self.swarm.by_id)
                 for name in services}
        address = node.entry.address
        redis_url = f"redis://{address}:{self.swarm.published(tasks['redis'], 6379)}"
        api_url = f"http://{address}:{self.swarm.published(tasks['api'], CONTAINER_PORT)}"
        self.swarm.network_urls[api_url] = SwarmInfra.server_api_url
        infra = SwarmInfra(self, log_dir, tasks, redis_url, api_url)
        try:
            self._wait_infra(infra)
        except BaseException:
            infra.stop()
            raise
        return infra

    def _wait_infra(self, infra: SwarmInfra) -> None:
        def exited(name: str) -> str | None:
            task = infra.tasks[name]
            state = (task.node.engine.container(task.container_id) or {}).get("State") or {}
            return None if state.get("Running") else f"{name} exited during start-up on {task.node.name} " \
                                                     f"(code {state.get('ExitCode')})"

        def tail(name: str) -> str:
            return infra.tasks[name].node.engine.logs(infra.tasks[name].container_id, tail=30)

        why = infra_not_ready(infra.redis_url, infra.api_url, exited, tail, f"{{}} on {self.swarm.infra_node.name}")
        if why:
            raise DockerError(why)

    # -- servers ------------------------------------------------------------------------------------------------
    def start(self, spec: ServerSpec, infra: InfraHandle, log_path: Path) -> SwarmServer:
        if self.swarm.stack_dir is None:
            raise StartError("start_infra() must run before start()")
        node = self.swarm.server_node
        try:
            plan = container_plan(spec)
            image_id = self.swarm.ship(plan.image, [node])
            compose = document([spec])[0]["services"][spec.name]
            variables = {"MCPBENCH_CPUS": f"{self.profile.cpus:g}", "MCPBENCH_MEMORY_MB": str(self.profile.memory_mb)}
            service = swarm_service(
                compose, variables, image=image_id, role="server", node_id=node.node_id, cpus=self.profile.cpus,
                memory_mb=self.profile.memory_mb,
                # Its service name in the network (the load driver) and its node's address (the orchestrator).
                environment={"ALLOWED_HOSTS": allowed_hosts(spec.name, node.entry.address)})
        except (DockerError, DockerConfigError) as exc:
            raise StartError(str(exc)) from exc
        server = SwarmServer(self, spec.name, self.swarm.service_name(spec.name), log_path)
        started = time.monotonic()
        try:
            self.swarm.deploy({spec.name: service}, spec.name)
            task = wait_for_task(self.swarm.manager, server.service, self.swarm.by_id,
                                 max(TASK_START_S, plan.ready_timeout_s))
            server.attach(task)
            running = (task.node.engine.container(task.container_id) or {}).get("Image")
            if running != self.swarm.shipped[plan.image]["image_id"]:
                raise DockerError(f"{node.name} runs {running} for {plan.image}, not the image built here "
                                  f"({self.swarm.shipped[plan.image]['image_id']})")
            server.limits_applied = self._limits_applied(task)
            port = self.swarm.published(task, container_port(compose["ports"]))
            server.url = f"http://{node.entry.address}:{port}/mcp"
            self.swarm.network_urls[f"http://{node.entry.address}:{port}"] = f"http://{spec.name}:{CONTAINER_PORT}"
            wait_until_ready(server.url, server.alive, plan.ready_timeout_s, server.log_tail)
            server.startup_s = time.monotonic() - started
            # The image as built here (its size, own layers): the bits the node runs, by id.
            server.details = {**image_details(self.swarm.local, plan.image), "runtime": "swarm",
                              "image_id": image_id, **self.builder.built_seconds(spec.name), "node": node.name,
                              "node_id": node.node_id, "service": server.service,
                              "cold_start_s": round(server.startup_s, 3)}
        except DockerError as exc:
            tail = server.log_tail()
            server.stop()
            raise StartError(f"{exc}\n{tail}".strip()) from exc
        except BaseException:
            server.stop()
            raise
        return server

    def _limits_applied(self, task: Task) -> bool:
        host = (task.node.engine.container(task.container_id) or {}).get("HostConfig") or {}
        applied = (int(host.get("NanoCpus") or 0) == int(round(self.profile.cpus * 1e9))
                   and int(host.get("Memory") or 0) == self.profile.memory_mb * 2**20)
        return applied and self.limits_support().usable

    def host_view(self) -> NodeAgents:
        """Every node's CPUs, busy/steal and speed probe, read on the node by an agent (swarm_nodes.py)."""
        if self.agents is None:
            self.agents = NodeAgents(self.swarm)
        return self.agents

    def load_generator(self, name: str, instances: int) -> SwarmDriver:
        """The load driver as tasks on the load nodes (swarm_load.py): the only generator the swarm runs."""
        if name != "driver":
            raise SwarmError(f"the swarm runs the load driver only, not {name!r}")
        return SwarmDriver(self.swarm, instances)

    # -- the end ------------------------------------------------------------------------------------------------
    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            for note in self.swarm.close():
                self.log(f"swarm: {note}")
        finally:
            self.swarm.local.close()
