"""The load driver on a swarm's load nodes (swarm_cluster.py): one task per segment (`--segment i/n`), spread
round-robin over the nodes labelled mcpbench.role=load and deployed together in one `docker stack deploy`, each
reaching the server by its service name on the stack's overlay network.

Each task writes its raw sample lines to stdout, which the orchestrator follows through the task's node
engine into the same per-instance log a local instance writes (so the live warm-up, the graceful stop with
SIGINT and the merge are instances.py's, unchanged); its counts go to a file in the container, copied out
once it has ended. Every instance counts t_s from its own scenario start on its node's clock; the merge
places the instances on one clock by their starts, each corrected by its node's clock offset, measured just
before the test (Node.clock_offset_s). A measurement whose nodes' clocks disagree by more than
analysis.CLOCK_OFFSET_BOUND_MS is flagged `clock-offset`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mcpbench.analysis.summary import LOADGEN
from mcpbench.host.resources import Usage, UsageReader
from mcpbench.loadgen.base import LoadError, LoadRun, OnStart, OnTick, StdioLaunch, Tick
from mcpbench.loadgen.driver import driver_argv
from mcpbench.loadgen.instances import OVERRUN_S, LocalInstances
from mcpbench.results.layout import MeasurementDir
from mcpbench.results.model import LoadInstance, SwarmGenerator
from mcpbench.runtime.docker_compose import LOAD_DRIVER_IMAGE
from mcpbench.runtime.docker_engine import DockerError, Engine
from mcpbench.runtime.swarm_cluster import Node, Swarm, Task, wait_for_task
from mcpbench.runtime.swarm_stack import NETWORK, ROLE_LABEL
from mcpbench.workload.file import Workload

if TYPE_CHECKING:
    from mcpbench.loads import Load
    from mcpbench.loads.timing import Timing

BINARY = Path("/usr/local/bin/load-driver")
COUNTS_IN_CONTAINER = "/tmp/loadgen-counts.json"
STDOUT = Path("/dev/stdout")
# An instance that ends this long before its own schedule does, without the orchestrator asking, was lost.
EARLY_END_S = 3.0


class LoadTask:
    """One load-driver task on a load node, seen as a generator process (instances.GeneratorProcess)."""

    pid = None  # not on this machine

    def __init__(self, manager: Engine, task: Task, samples_log: Path, counts_path: Path, log_path: Path,
                 offset_s: float, rtt_s: float):
        self.manager = manager
        self.task = task
        self.engine = task.node.engine
        self.samples_log = samples_log
        self.counts_path = counts_path
        self.log_path = log_path
        self.clock_offset_s = offset_s
        self.rtt_s = rtt_s
        self._exit: int | None = None
        self._collected = False
        self.stopping = False  # the orchestrator ended it (SIGINT, stop): an end that is no loss
        self.lost: str | None = None  # why it ended before the test did, when something else ended it
        samples_log.parent.mkdir(parents=True, exist_ok=True)
        samples_log.touch()
        self._follower = threading.Thread(target=self._follow, daemon=True, name=f"follow-{task.service}")
        self._follower.start()

    def _follow(self) -> None:
        """stdout into the local samples log as it comes (the warm-up tails that file)."""
        try:
            with open(self.samples_log, "ab") as out:
                for chunk in self.engine.follow_logs(self.task.container_id):
                    out.write(chunk)
                    out.flush()
        except (DockerError, OSError, ValueError):
            pass  # the node went away: what arrived is kept, poll() says it ended

    def poll(self) -> int | None:
        if self._exit is not None:
            return self._exit
        node = self.task.node.name
        try:
            state = (self.engine.container(self.task.container_id) or {}).get("State")
        except DockerError:
            self._exit = -1
            self.lost = f"load node {node} stopped answering during the test (its instance's samples end there)"
            return self._exit
        if state is None:
            self._exit = -1
            self.lost = f"the load instance's container on {node} disappeared during the test"
        elif not state.get("Running"):
            self._exit = int(state.get("ExitCode") or 0)
        return self._exit

    def shut_down_by_swarm(self) -> bool:
        """Whether the manager wants the task down (a drain, a node that left). Asked only of a task that ended
        before its schedule did: a task that ends on its own is wanted down afterwards too."""
        try:
            tasks = self.manager.tasks(self.task.service)
        except DockerError:
            return False
        return any(t.get("DesiredState") == "shutdown" and (t.get("Status") or {}).get("ContainerStatus", {})
                   .get("ContainerID") == self.task.container_id for t in tasks)

    def wait(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while self.poll() is None:
            if time.monotonic() >= deadline:
                return False
            time.sleep(min(0.1, max(0.0, deadline - time.monotonic())))
        return True

    def ran_s(self) -> float:
        """How long its test has run, from its own scenario start (the samples' T line, on its node's clock
        corrected to ours); 0 before it started."""
        try:
            with open(self.samples_log, encoding="utf-8", errors="replace") as handle:
                first = handle.readline()
        except OSError:
            return 0.0
        if not first.startswith("T,"):
            return 0.0
        return time.time() - (float(first[2:]) / 1000 - self.clock_offset_s)

    def interrupt(self) -> None:
        self.stopping = True
        try:
            self.engine.kill(self.task.container_id, "SIGINT")
        except DockerError:
            pass

    @property
    def returncode(self) -> int | None:
        return self._exit

    def stop(self, grace_s: float = 10.0) -> int | None:
        """Ended (SIGTERM, then what `docker stop` does after grace_s), its stderr and counts copied here."""
        self.stopping = True
        if self.poll() is None:
            try:
                self.engine.stop(self.task.container_id, grace_s=int(max(1, grace_s)))
            except DockerError:
                pass
            self.wait(grace_s + 5)
        if not self._collected:
            self._collected = True
            self._follower.join(timeout=10)
            try:
                self.log_path.write_text(self.engine.logs(self.task.container_id, stdout=False), encoding="utf-8")
                counts = self.engine.read_file(self.task.container_id, COUNTS_IN_CONTAINER)
                if counts:
                    self.counts_path.write_bytes(counts)
            except (DockerError, OSError):
                pass
        return self._exit

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.engine.logs(self.task.container_id, stdout=False).splitlines()[-lines:])
        except DockerError as exc:
            return f"[the load task's log is unavailable: {exc}]"


def summed(readers: list[UsageReader]) -> UsageReader:
    """Several containers as one component: CPU time and memory added (None while any is unknown)."""

    def read() -> Usage | None:
        parts = [reader() for reader in readers]
        known = [part for part in parts if part is not None]
        if not parts or len(known) < len(parts):
            return None
        return Usage(sum(p.cpu_ns for p in known), sum(p.memory_bytes for p in known))

    return read


class SwarmDriver(LocalInstances):
    """The load driver as tasks on the swarm's load nodes."""

    name = "driver"
    transports = frozenset({"http"})

    def __init__(self, swarm: Swarm, instances: int = 1):
        super().__init__(None, instances)
        self.swarm = swarm
        self.load_nodes = swarm.role_nodes("load")
        self.tasks: list[LoadTask] = []
        self.image_id: str | None = None
        self._tests = 0

    def describe(self) -> SwarmGenerator:
        return SwarmGenerator(name=self.name, where="swarm", instances=self.instances,
                              nodes=[self.node_of(i).name for i in range(self.instances)], image=LOAD_DRIVER_IMAGE,
                              image_id=self.image_id)

    def node_of(self, index: int) -> Node:
        return self.load_nodes[index % len(self.load_nodes)]

    def prepare(self, log_dir: Path) -> None:
        try:
            self.image_id = self.swarm.ship(LOAD_DRIVER_IMAGE, self.load_nodes)
        except DockerError as exc:
            raise LoadError(str(exc)) from None

    def usage_readers(self, pids: Sequence[int]) -> dict[str, UsageReader]:
        """The load tasks' containers as their nodes' engines count them: all of them as LOADGEN, and each
        node's as LOADGEN@<node> (its bound is that node's CPUs)."""
        by_node: dict[str, list[UsageReader]] = {}
        for task in self.tasks:
            by_node.setdefault(task.task.node.name, []).append(task.task.node.stats.reader(task.task.container_id))
        readers = {f"{LOADGEN}@{node}": summed(parts) for node, parts in by_node.items()}
        return {LOADGEN: summed([reader for parts in by_node.values() for reader in parts]), **readers}

    def answering_nodes(self) -> dict[str, tuple[float, float]]:
        """The load nodes that answer and are ready now, each with its clock offset and the round trip it was
        measured over. A node lost earlier in the run is left out (said once): the test's segments are then
        spread over the others, and each measurement records where its instances ran."""
        try:
            ready = {node["ID"] for node in self.swarm.manager.nodes()
                     if (node.get("Status") or {}).get("State") == "ready"
                     and (node.get("Spec") or {}).get("Availability") == "active"}
        except DockerError as exc:
            raise LoadError(f"the swarm manager does not answer: {exc}") from None
        clocks: dict[str, tuple[float, float]] = {}
        for node in list(self.load_nodes):
            try:
                if node.node_id in ready:
                    clocks[node.name] = node.clock_offset_s()
                    continue
                why = "not ready and active in the swarm"
            except DockerError:
                why = "its engine does not answer"
            self.load_nodes.remove(node)
            self.swarm.log(f"  load node {node.name} is left out from now on: {why}")
        if not self.load_nodes:
            raise LoadError("no load node of the swarm answers")
        return clocks

    def run(self, url: str, load: Load, timing: Timing, out: MeasurementDir, on_start: OnStart | None = None,
            on_tick: OnTick | None = None, checks: bool = True, launch: StdioLaunch | None = None,
            workload: Workload | None = None) -> LoadRun:
        if launch is not None:
            raise LoadError("the swarm runs no stdio servers")
        try:
            if self.image_id is None:
                self.prepare(out.path)
            return self._run(self.swarm.in_network(url), load, timing, MeasurementDir(out.path.resolve()), on_start,
                             on_tick, checks, workload)
        except DockerError as exc:
            raise LoadError(f"the swarm's load tasks: {exc}") from None

    def _run(self, target: str, load: Load, timing: Timing, out: MeasurementDir, on_start: OnStart | None,
             on_tick: OnTick | None, checks: bool, workload: Workload | None = None) -> LoadRun:
        clocks = self.answering_nodes()
        count = self.instances
        self._tests += 1
        names = [f"load-{self._tests}-{index}" for index in range(count)]
        services = {}
        for index, name in enumerate(names):
            node = self.node_of(index)
            argv = driver_argv(BINARY, target, load, timing, checks, STDOUT, Path(COUNTS_IN_CONTAINER), (index, count),
                               workload=workload)
            services[name] = {
                "image": self.image_id, "entrypoint": [str(BINARY)], "command": argv[1:], "networks": [NETWORK],
                "deploy": {"mode": "replicated", "replicas": 1, "endpoint_mode": "dnsrr",
                           "restart_policy": {"condition": "none"},
                           "placement": {"constraints": [f"node.labels.{ROLE_LABEL}==load",
                                                         f"node.id=={node.node_id}"]}},
            }
        self.tasks = []
        try:
            # One deploy for every segment: the tasks are released together.
            self.swarm.deploy(services, f"load-{self._tests}")
            ready = [wait_for_task(self.swarm.manager, self.swarm.service_name(name), self.swarm.by_id)
                     for name in names]
        except DockerError as exc:
            for name in names:
                self.swarm.remove_service(self.swarm.service_name(name))
            raise LoadError(f"the load tasks did not start: {exc}") from None

        def spawn(index: int, samples_log: Path, counts_path: Path, log_path: Path) -> LoadTask:
            task = ready[index]
            offset, rtt = clocks[task.node.name]
            load_task = LoadTask(self.swarm.manager, task, samples_log, counts_path, log_path, offset, rtt)
            self.tasks.append(load_task)
            return load_task

        def watched(elapsed: float, live) -> Tick:
            # An instance lost mid-test leaves its segment unmeasured from then on: end the test now. Every
            # instance runs the same schedule, so one that ends well before it, unasked, was ended by its node
            # (a dockerd stopping sends SIGTERM, which the driver takes as a graceful stop).
            for task in self.tasks:
                code = task.poll()
                ran = task.ran_s()
                if code is not None and not task.lost and not task.stopping and ran < timing.total_s - EARLY_END_S:
                    who = ("swarm stopped it (its node was drained or left the swarm)" if task.shut_down_by_swarm()
                           else "its node stopped it")
                    task.lost = (f"the load instance on {task.task.node.name} ended {ran:.0f} s into a "
                                 f"{timing.total_s:.0f} s test (exit {code}), unasked: {who}")
            if any(task.lost for task in self.tasks):
                return Tick.ABORT
            return on_tick(elapsed, live) if on_tick else Tick.GO_ON

        try:
            done = self.run_instances(count, spawn, out, timing.total_s + OVERRUN_S, "the load driver",
                                      on_start, watched, timing.request_timeout_s)
        finally:
            for name in names:
                self.swarm.remove_service(self.swarm.service_name(name))
        instances = [LoadInstance(node=task.task.node.name, node_cpus=task.task.node.facts.get("cpus"),
                                  clock_offset_ms=round(task.clock_offset_s * 1000, 3),
                                  clock_rtt_ms=round(task.rtt_s * 1000, 3), exit_code=task.returncode)
                     for task in self.tasks]
        lost = next((task.lost for task in self.tasks if task.lost), None)
        if done.samples.empty:
            said = done.all_counts[0].error if done.all_counts[0] else None
            reason = lost or said or done.instances[0].process.log_tail(5) or "no output"
            raise LoadError(f"the load driver produced no samples on {instances[0].node} "
                            f"(exit {done.exit_code}): {reason}")
        return LoadRun(done.samples, done.start_epoch, done.exit_code, done.run_s, done.stopped_early, done.counts,
                       done.ended_epoch - done.start_epoch if done.start_epoch is not None else None,
                       instances=instances, lost=lost)
