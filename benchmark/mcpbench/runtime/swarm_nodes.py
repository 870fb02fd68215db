"""Each swarm node measured like the local host (host/speed_probe.py): per-CPU busy and steal at the sampler's
1 Hz, and the fixed-work speed probe before and after each load — read on the node itself by a node agent
(`load-driver node-agent`, benchmark/load-driver/node.go), one task per node, whose output the orchestrator
follows through the node's engine (the orchestrator cannot read another host's /proc).

Components, beside the local host's names: `cpu<N>@<node>` and `steal<N>@<node>`; the probe's CPUs are
`<N>@<node>`. `host` (what noisy-host subtracts our own components from) is the busy time of every distinct
machine the nodes run on: nodes that share a kernel (the one-machine lab) share a boot id and count once,
and so does their probe, which runs once per machine.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from mcpbench.host.resources import Usage, UsageReader
from mcpbench.runtime.docker_compose import LOAD_DRIVER_IMAGE
from mcpbench.runtime.docker_engine import DockerError
from mcpbench.runtime.swarm_cluster import Node, Swarm, Task, wait_for_task
from mcpbench.runtime.swarm_stack import NETWORK, ROLE_LABEL

PROBE_TIMEOUT_S = 60  # a probe is ~0.4 s per CPU; a node this slow to answer has none
AGENT_PORT = 7070     # the agent accepts and closes TCP connections there (node.go): what `rtt` times
RTT_CONNECTS = 50


@dataclass
class AgentView:
    """What one node's agent has said so far."""

    node: Node
    task: Task
    boot_id: str | None = None
    counters: dict[int, tuple[int, int]] = field(default_factory=dict)  # cpu -> (busy ns, steal ns), latest
    probes: dict[int, dict[int, float]] = field(default_factory=dict)   # probe n -> cpu -> seconds
    done: set[int] = field(default_factory=set)
    asked: int = 0  # SIGUSR1s sent: the agent numbers its probes 1, 2, … in that order
    lock: threading.Lock = field(default_factory=threading.Lock)

    def read_line(self, line: str) -> None:
        parts = line.strip().split(",")
        with self.lock:
            if parts[0] == "H" and len(parts) == 3:
                self.boot_id = parts[1]
            elif parts[0] == "C" and len(parts) == 5:
                self.counters[int(parts[2])] = (int(parts[3]), int(parts[4]))
            elif parts[0] == "R" and len(parts) == 3 and parts[2] == "done":
                self.done.add(int(parts[1]))
            elif parts[0] == "R" and len(parts) == 4:
                self.probes.setdefault(int(parts[1]), {})[int(parts[2])] = float(parts[3])


class NodeAgents:
    """The node agents of a run (runtime HostView): deployed once, followed, removed with the stack."""

    def __init__(self, swarm: Swarm):
        self.swarm = swarm
        nodes = swarm.nodes
        self.views: list[AgentView] = []
        image = swarm.ship(LOAD_DRIVER_IMAGE, nodes)
        services = {f"agent-{node.name}": {
            "image": image, "entrypoint": ["/usr/local/bin/load-driver"], "command": ["node-agent"],
            "networks": [NETWORK],
            "deploy": {"mode": "replicated", "replicas": 1, "endpoint_mode": "dnsrr",
                       "restart_policy": {"condition": "none"},
                       "placement": {"constraints": [f"node.labels.{ROLE_LABEL}=={node.entry.role}",
                                                     f"node.id=={node.node_id}"]}}} for node in nodes}
        swarm.deploy(services, "agents")
        for name in services:
            task = wait_for_task(swarm.manager, swarm.service_name(name), swarm.by_id)
            view = AgentView(task.node, task)
            self.views.append(view)
            threading.Thread(target=self._follow, args=(view,), daemon=True, name=f"agent-{task.node.name}").start()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not all(v.boot_id and v.counters for v in self.views):
            time.sleep(0.05)
        self.network_rtt_ms = self.measure_rtt(image)

    def measure_rtt(self, image: str) -> dict[str, dict[str, float] | str]:
        """The network round trip from each load node to the server node over the stack's overlay network
        (the load's path): TCP connects to the server node's agent, timed on the load node."""
        swarm = self.swarm
        server = swarm.server_node
        loads = swarm.role_nodes("load")
        services = {f"rtt-{node.name}": {
            "image": image, "entrypoint": ["/usr/local/bin/load-driver"],
            "command": ["rtt", "--target", f"agent-{server.name}:{AGENT_PORT}", "--count", str(RTT_CONNECTS)],
            "networks": [NETWORK],
            "deploy": {"mode": "replicated", "replicas": 1, "endpoint_mode": "dnsrr",
                       "restart_policy": {"condition": "none"},
                       "placement": {"constraints": [f"node.id=={node.node_id}"]}}} for node in loads}
        results: dict[str, dict[str, float] | str] = {}
        try:
            swarm.deploy(services, "rtt")
            for node in loads:
                results[node.name] = self._rtt_result(swarm.service_name(f"rtt-{node.name}"), node)
        except DockerError as exc:
            results = {node.name: f"not measured: {exc}" for node in loads}
        finally:
            for name in services:
                swarm.remove_service(swarm.service_name(name))
        return results

    def _rtt_result(self, service: str, node: Node) -> dict[str, float] | str:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for task in self.swarm.manager.tasks(service):
                status = task.get("Status") or {}
                if status.get("State") in ("complete", "failed", "rejected"):
                    container = (status.get("ContainerStatus") or {}).get("ContainerID")
                    output = node.engine.logs(container, stdout=True, stderr=True) if container else ""
                    line = next((x for x in output.splitlines() if x.startswith("RTT,")), None)
                    if not line:
                        return f"not measured: {output.strip()[-200:] or status.get('Err')}"
                    fields = line.split(",")
                    median, low, high = (float(v) for v in fields[1:4])
                    return {"median_ms": median, "min_ms": low, "max_ms": high, "connects": int(fields[4])}
            time.sleep(0.1)
        # load-driver rtt ends within 40 s, so only a task that never started lands here.
        states = sorted({(t.get("Status") or {}).get("State", "?") for t in self.swarm.manager.tasks(service)})
        return f"not measured: the task did not finish within 60 s (task state {', '.join(states) or 'none'})"

    @staticmethod
    def _follow(view: AgentView) -> None:
        pending = b""
        try:
            for chunk in view.node.engine.follow_logs(view.task.container_id):
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    view.read_line(line.decode("utf-8", errors="replace"))
        except (DockerError, OSError, ValueError):
            pass  # the node went away: its readers return None from now on

    def machines(self) -> list[AgentView]:
        """One agent per distinct machine (by boot id), the first node's."""
        seen: dict[str, AgentView] = {}
        for view in self.views:
            seen.setdefault(view.boot_id or view.node.name, view)
        return list(seen.values())

    # -- HostView ---------------------------------------------------------------------------------------------
    @property
    def harness_cores(self) -> int:
        """Redis's and the API service's node's CPUs: what their saturation is judged against."""
        return int(self.swarm.infra_node.facts.get("cpus") or 1)

    def readers(self) -> dict[str, UsageReader]:
        readers: dict[str, UsageReader] = {"host": self._host_reader()}
        for view in self.views:
            for cpu in sorted(view.counters):
                readers[f"cpu{cpu}@{view.node.name}"] = self._counter(view, cpu, 0)
                readers[f"steal{cpu}@{view.node.name}"] = self._counter(view, cpu, 1)
        return readers

    @staticmethod
    def _counter(view: AgentView, cpu: int, which: int) -> UsageReader:
        def read() -> Usage | None:
            with view.lock:
                values = view.counters.get(cpu)
            return Usage(values[which], 0) if values else None

        return read

    def _host_reader(self) -> UsageReader:
        machines = self.machines()

        def read() -> Usage | None:
            total = 0
            for view in machines:
                with view.lock:
                    if not view.counters:
                        return None
                    total += sum(busy for busy, _ in view.counters.values())
            return Usage(total, 0)

        return read

    def probe(self) -> dict[str, float | None]:
        """The speed probe on every CPU of every machine, one machine after the other (never two at once:
        on the lab they are the same cores)."""
        results: dict[str, float | None] = {}
        for view in self.machines():
            view.asked += 1
            number = view.asked
            try:
                view.node.engine.kill(view.task.container_id, "SIGUSR1")
            except DockerError:
                continue
            deadline = time.monotonic() + PROBE_TIMEOUT_S
            while number not in view.done and time.monotonic() < deadline:
                time.sleep(0.02)
            with view.lock:
                for cpu, seconds in sorted(view.probes.get(number, {}).items()):
                    results[f"{cpu}@{view.node.name}"] = seconds
        return results
