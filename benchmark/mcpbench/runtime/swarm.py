"""The swarm runtime: the server under test, the infrastructure and the load on separate hosts of a Docker
swarm — the server alone on a node labelled mcpbench.role=server, Redis and the API service on an infra
node, the load driver on load nodes (swarm_load.py) — deployed as a stack rendered from the same compose
model as docker-compose.yml (swarm_stack.py), each node watched as the local host is (swarm_nodes.py).

The swarm itself (its endpoints, the run's stack, images moved to the nodes): swarm_cluster.py. This module is
the runtime seam's side: Redis and the API service, each server started, watched and stopped.
"""

from __future__ import annotations

import atexit
import time
from pathlib import Path

from mcpbench.catalog.build import BuildOutcome
from mcpbench.catalog.manifest import ServerSpec
from mcpbench.host.ports import allowed_hosts
from mcpbench.host.profile import ResourceProfile
from mcpbench.results.model import CgroupSupport, SwarmEnvironment
from mcpbench.runtime.base import InfraHandle, Runtime, StartError, wait_until_ready
from mcpbench.runtime.docker import (
    Container,
    ContainerInfra,
    ContainerServer,
    ImageBuilder,
    ensure_engine,
    image_details,
    started_from,
)
from mcpbench.runtime.docker_compose import (
    API_IMAGE,
    CONTAINER_PORT,
    REDIS_IMAGE,
    DockerConfigError,
    DockerUnsupported,
    container_plan,
    document,
)
from mcpbench.runtime.docker_engine import DockerError
from mcpbench.runtime.swarm_cluster import (
    SWARM_FILE,
    TASK_START_S,
    Swarm,
    SwarmError,
    Task,
    read_swarm_file,
    wait_for_task,
)
from mcpbench.runtime.swarm_load import SwarmDriver
from mcpbench.runtime.swarm_nodes import NodeAgents
from mcpbench.runtime.swarm_stack import container_port, swarm_service


class SwarmRuntime(Runtime):
    name = "swarm"
    takes_registry = True
    build_workers = 1

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

    def limits_support(self) -> CgroupSupport:
        facts = self.swarm.server_node.facts
        usable = facts["cpu_quota"] and facts["memory_limit"]
        return CgroupSupport(version=facts["cgroup_version"], applied=usable,
                             note=None if usable else f"the server node {self.swarm.server_node.name}'s engine cannot "
                                                      "enforce CPU/memory limits")

    def environment(self) -> SwarmEnvironment:
        return SwarmEnvironment(
            swarm=self.swarm.topology.name, manager=self.swarm.topology.manager, stack=self.swarm.stack,
            images_moved_by=f"registry {self.swarm.registry}" if self.swarm.registry else "docker save/load",
            nodes=[node.facts for node in self.swarm.nodes], images=self.swarm.shipped,
            endpoint_mode="dnsrr", publish_mode="host",
            network_rtt_ms=self.agents.network_rtt_ms if self.agents else None,
            clock_offsets_ms={node.name: self._offset_ms(node) for node in self.swarm.nodes})

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
    def start_infra(self, log_dir: Path, redis: bool = True) -> ContainerInfra:  # always both: not infra_optional
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
        self.swarm.network_urls[api_url] = ContainerInfra.server_api_url
        containers = {name: Container(task.node.engine, task.node.stats, task.container_id)
                      for name, task in tasks.items()}
        infra = ContainerInfra(log_dir, containers, redis_url, api_url,
                               lambda name: self.swarm.remove_service(self.swarm.service_name(name)))
        infra.wait_ready(f"the {{}} container on {node.name}")
        return infra

    # -- servers ------------------------------------------------------------------------------------------------
    def start(self, spec: ServerSpec, infra: InfraHandle | None, log_path: Path) -> ContainerServer:
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
        service_name = self.swarm.service_name(spec.name)
        started = time.monotonic()
        try:
            self.swarm.deploy({spec.name: service}, spec.name)
            task = wait_for_task(self.swarm.manager, service_name, self.swarm.by_id,
                                 max(TASK_START_S, plan.ready_timeout_s))
        except DockerError as exc:
            self.swarm.remove_service(service_name)
            raise StartError(str(exc)) from exc
        except BaseException:
            self.swarm.remove_service(service_name)
            raise
        container = Container(task.node.engine, task.node.stats, task.container_id)
        server = ContainerServer(spec.name, container, log_path, self.profile.memory_mb,
                                 lambda: self.swarm.remove_service(service_name))
        try:
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
            details = started_from(image_details(self.swarm.local, plan.image), "swarm",
                                   self.builder.built_s(spec.name), server.startup_s)
            details.image_id, details.node, details.node_id, details.service = (image_id, node.name, node.node_id,
                                                                                service_name)
            server.details = details
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
        return applied and bool(self.limits_support().applied)

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
