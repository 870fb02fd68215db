"""The docker runtime: Redis, the API service and each server as containers of the generated compose file,
under deploy.resources.limits from the same resource profile as the local runtime, stats from the Engine API
(through docker-py, mcpbench.docker_engine).

Lifecycle: `docker compose` creates the containers (so what runs is exactly docker-compose.yml plus a
run override that only disables healthchecks, which would otherwise exec probes inside the measured
cgroups); the Engine API starts them (timed: cold start = container start → first `initialize`), reads
their stats (one-shot, as `docker stats` computes CPU time and memory on cgroup v1 and v2), their logs,
and stops them. Everything belongs to one compose project, `mcpbench-<pid>`, taken down by close() —
on a normal end, an error, Ctrl-C or SIGTERM (atexit) — and swept by the next run if this process died.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psutil
import redis as redis_lib

from mcpbench.catalog.build import BuildOutcome
from mcpbench.catalog.manifest import ServerSpec
from mcpbench.host import versions
from mcpbench.host.paths import API_SERVICE_DIR, ROOT
from mcpbench.host.processes import exit_said
from mcpbench.host.profile import ResourceProfile
from mcpbench.host.resources import Usage, tree_usage
from mcpbench.loadgen.driver import DRIVER_DIR as LOAD_DRIVER_DIR
from mcpbench.results.model import IMAGE_FILE, LOAD_MARK, CgroupSupport, DockerEnvironment, Image
from mcpbench.runtime.base import InfraHandle, Runtime, ServerBase, StartError, infra_not_ready, wait_until_ready
from mcpbench.runtime.docker_compose import (
    API_IMAGE,
    API_URL_IN_NETWORK,
    BASE_IMAGE,
    CONTAINER_PORT,
    DOCKER_DIR,
    LOAD_DRIVER_IMAGE,
    REDIS_IMAGE,
    REDIS_URL_IN_NETWORK,
    ContainerPlan,
    DockerConfigError,
    DockerUnsupported,
    container_plan,
    document,
)
from mcpbench.runtime.docker_engine import DockerError, Engine, compose_command, compose_version
from mcpbench.workload import seed

PROJECT_PREFIX = "mcpbench-"
PROJECT_LABEL = "com.docker.compose.project"
SERVICE_LABEL = "com.docker.compose.service"
SETUP_SCRIPT = DOCKER_DIR / "setup-engine.sh"
BASE_SCRIPT = DOCKER_DIR / "build-base.sh"


def ensure_engine(log=print, need_compose: bool = True) -> Engine:
    """An Engine that answers (and compose v2 if asked for); sets them up (docker/setup-engine.sh) when
    missing and we may (root; MCPBENCH_NO_ENGINE_SETUP=1 turns this off)."""
    try:
        engine = Engine()
        if need_compose:
            compose_command()
        return engine
    except DockerError as first:
        if os.geteuid() != 0 or not SETUP_SCRIPT.exists() or os.environ.get("MCPBENCH_NO_ENGINE_SETUP"):
            raise
        log(f"docker: {first}; running {SETUP_SCRIPT.relative_to(ROOT)}")
        done = subprocess.run(["bash", str(SETUP_SCRIPT)], cwd=ROOT, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            raise DockerError(f"{SETUP_SCRIPT.relative_to(ROOT)} failed (exit {done.returncode}); {first}") from first
        engine = Engine()
        if need_compose:
            compose_command()
        return engine


def ensure_base(engine: Engine, log_file=None) -> None:
    """The shared base image, built locally (debootstrap + docker import) when missing."""
    if engine.image(BASE_IMAGE) or os.environ.get("MCPBENCH_BASE_IMAGE"):
        return
    if not BASE_SCRIPT.exists():
        raise DockerError(f"the base image {BASE_IMAGE} is missing and {BASE_SCRIPT} is not there to build it")
    done = subprocess.run(["bash", str(BASE_SCRIPT)], cwd=ROOT, stdin=subprocess.DEVNULL,
                          stdout=log_file or None, stderr=subprocess.STDOUT if log_file else None)
    if done.returncode != 0 or not engine.image(BASE_IMAGE):
        raise DockerError(f"building the base image {BASE_IMAGE} failed (docker/build-base.sh exit "
                          f"{done.returncode}{'; see the build log' if log_file else ''})")


def sweep_stale_projects(engine: Engine) -> list[str]:
    """Take down mcpbench-<pid> projects whose orchestrator process is gone (killed with SIGKILL, say)."""
    swept: set[str] = set()
    for container in engine.containers({PROJECT_LABEL: ""}):
        project = (container.get("Labels") or {}).get(PROJECT_LABEL, "")
        if not project.startswith(PROJECT_PREFIX):
            continue
        owner = project[len(PROJECT_PREFIX):]
        if owner.isdigit() and not psutil.pid_exists(int(owner)):
            engine.remove(container["Id"])
            swept.add(project)
    for project in swept:
        _remove_network(engine, project)
    return sorted(swept)


def _remove_network(engine: Engine, project: str) -> None:
    try:
        engine.remove_network(f"{project}_bench")
    except DockerError:
        pass


def image_details(engine: Engine, tag: str) -> Image:
    """The image `tag` as this engine has it: its id, size, the size of its own layers above the base image's,
    and when it was made (image.json; the runtime adds how it ran it)."""
    image = engine.image(tag) or {}
    base = engine.image(BASE_IMAGE) or {}
    size = int(image.get("Size") or 0)
    base_size = int(base.get("Size") or 0)
    base_layers = set((base.get("RootFS") or {}).get("Layers") or [])
    image_layers = set((image.get("RootFS") or {}).get("Layers") or [])
    own = size - base_size if base_layers and base_layers <= image_layers else None
    return Image(image=tag, image_id=image.get("Id"), image_size_mb=round(size / 1e6, 1),
                 image_own_layers_mb=round(own / 1e6, 1) if own is not None else None,
                 base_image=BASE_IMAGE, base_image_id=base.get("Id"), image_created=image.get("Created"))


def started_from(image: Image, runtime: str, built_s: float | None, startup_s: float) -> Image:
    """`image` as the runtime started a server from it: its cold start, and how long its build took where this run
    built it (else not set, so not written)."""
    image.runtime = runtime
    if built_s is not None:
        image.build_s = built_s
    image.cold_start_s = round(startup_s, 3)
    return image


class ImageBuilder:
    """Builds the base (if missing), Redis, the API service and server images through the Engine API."""

    def __init__(self, engine: Engine):
        self.engine = engine
        self._built: dict[tuple, BuildOutcome] = {}
        self._seconds: dict[str, float] = {}

    def built_s(self, name: str) -> float | None:
        """How long this builder took to build the server's image (None: it did not build it in this run)."""
        return round(self._seconds[name], 2) if name in self._seconds else None

    def build_infra(self, log_path: Path, no_cache: bool = False) -> BuildOutcome:
        """The base image (if missing), then the harness's images: Redis, the API service, the load driver."""
        started = time.monotonic()
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(log_path, "w", encoding="utf-8") as log:
            try:
                ensure_base(self.engine, log)
                log.write(f"$ build {REDIS_IMAGE} from docker/redis\n")
                self.engine.build(DOCKER_DIR / "redis", REDIS_IMAGE, log=log, labels={"mcpbench.role": "redis"},
                                  build_args=_base_override(), no_cache=no_cache)
                log.write(f"$ build {API_IMAGE} from infra/api-service with docker/api-service/Dockerfile\n")
                # A Dockerfile outside the context: docker-py adds it to the context it sends.
                self.engine.build(API_SERVICE_DIR, API_IMAGE, dockerfile=DOCKER_DIR / "api-service" / "Dockerfile",
                                  log=log, labels={"mcpbench.role": "api-service"}, build_args=_base_override(),
                                  no_cache=no_cache)
                log.write(f"$ build {LOAD_DRIVER_IMAGE} from benchmark/load-driver\n")
                self.engine.build(LOAD_DRIVER_DIR, LOAD_DRIVER_IMAGE, log=log, labels={"mcpbench.role": "load-driver"},
                                  build_args=_base_override(), no_cache=no_cache)
            except DockerError as exc:
                return BuildOutcome("failed", time.monotonic() - started, str(exc), log_path)
        return BuildOutcome("ok", time.monotonic() - started, None, log_path)

    def build_server(self, spec: ServerSpec, log_path: Path, no_cache: bool = False) -> BuildOutcome:
        """The server's image from its Dockerfile; image.json beside the build log records it."""
        started = time.monotonic()
        try:
            plan = container_plan(spec)
        except DockerUnsupported as exc:
            return BuildOutcome("skipped", 0.0, str(exc), None)
        except DockerConfigError as exc:
            return BuildOutcome("failed", 0.0, str(exc), None)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        command = (f"build {plan.image} from {plan.context}/{plan.dockerfile}"
                   + (f" --target {plan.target}" if plan.target else ""))
        with open(log_path, "w", encoding="utf-8") as log:
            log.write(f"$ {command}\n")
            previous = self._built.get(plan.build_key)
            if previous and previous.status != "ok":
                return BuildOutcome("failed", 0.0, previous.reason, log_path, command)
            try:
                ensure_base(self.engine, log)
                result = self.engine.build(
                    plan.context, plan.image, dockerfile=plan.dockerfile, target=plan.target,
                    build_args={**plan.build_args, **_base_override()}, log=log,
                    labels={"mcpbench.server": plan.name}, timeout_s=spec.build_timeout_s, no_cache=no_cache)
            except DockerError as exc:
                outcome = BuildOutcome("failed", time.monotonic() - started, str(exc), log_path, command)
                self._built[plan.build_key] = outcome
                return outcome
        outcome = BuildOutcome("ok", time.monotonic() - started, None, log_path, command)
        self._built[plan.build_key] = outcome
        self._seconds[spec.name] = outcome.seconds
        built = image_details(self.engine, plan.image)
        built.runtime, built.image_id, built.build_s = "docker", result.image_id, round(outcome.seconds, 2)
        _write_image_record(log_path.parent / IMAGE_FILE, built)
        return outcome


class StatsHub:
    """Engine API stats for every watched container, read in rounds.

    The daemon publishes container stats once a second, and a one-shot stats request made while its
    collector runs waits for the next publication (~1 s on Engine 20.10). Read one container after the
    other, three containers would take three seconds per 1 Hz sample. So the first reader called in a
    round fetches every watched container at once (one connection each) and the other readers of the same
    round get their container's reading from that same publication: one round per second, all components
    read at the same instant, as `docker stats` shows them. The engine's client is shared: its connection
    pool gives each parallel request a connection of its own.
    """

    def __init__(self, engine: Engine):
        self.engine = engine
        self._watched: set[str] = set()
        self._latest: dict[str, Usage | None] = {}
        self._unread: set[str] = set()  # fetched in the current round and not yet returned
        self._lock = threading.Lock()

    def watch(self, container_id: str) -> None:
        with self._lock:
            self._watched.add(container_id)

    def unwatch(self, container_id: str) -> None:
        with self._lock:
            self._watched.discard(container_id)
            self._latest.pop(container_id, None)
            self._unread.discard(container_id)

    def reader(self, container_id: str):
        self.watch(container_id)
        return lambda: self.read(container_id)

    def read(self, container_id: str) -> Usage | None:
        """This container's reading of the current round; a new round when it was already returned."""
        with self._lock:
            if container_id not in self._watched:
                return None
            if container_id not in self._unread:
                watched = set(self._watched)
                threads = [threading.Thread(target=self._fetch, args=(ref,), daemon=True) for ref in watched]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join(timeout=10)
                self._unread = watched
            self._unread.discard(container_id)
            return self._latest.get(container_id)

    def _fetch(self, container_id: str) -> None:
        self._latest[container_id] = self.engine.usage(container_id)

    def close(self) -> None:
        with self._lock:
            self._watched.clear()


@dataclass(frozen=True)
class Container:
    """A container and the engine that runs it (this machine's, or a swarm node's) with that engine's stats."""

    engine: Engine
    stats: StatsHub
    id: str


class ContainerServer(ServerBase):
    """A server in a container, watched and stopped through its engine; `remove` takes it away for good (the
    docker runtime removes the container, the swarm its service)."""

    def __init__(self, name: str, container: Container, log_path: Path, memory_mb: int,
                 remove: Callable[[], None]):
        self.name = name
        self.container = container
        self.container_id = container.id
        self.log_path = log_path
        self.url = ""
        self.startup_s = 0.0
        self.limits_applied = False
        self.details: Image | None = None
        self._engine = container.engine  # the sampler thread uses it too: one pooled connection per thread
        self._usage = container.stats.reader(container.id)
        self._memory_mb = memory_mb
        self._remove = remove
        self._lock = threading.Lock()
        self._stopped = False
        self._load_since: float | None = None  # epoch seconds: load_begins

    def alive(self) -> bool:
        state = (self._engine.container(self.container_id) or {}).get("State") or {}
        return bool(state.get("Running"))

    def usage(self) -> Usage | None:
        if self._stopped:
            return None
        return self._usage()

    def load_begins(self) -> None:
        # The engine keeps the log: the mark is a time, written into server.log when the log is saved (stop).
        self._load_since = time.time()

    def load_log_tail(self, lines: int = 20) -> str:
        try:
            return self._engine.logs(self.container_id, tail=lines, since=self._load_since).rstrip()
        except DockerError as exc:
            return f"[logs unavailable: {exc}]"

    def exit_cause(self) -> str | None:
        """The engine's word: OOMKilled (at the container's memory limit), else the exit code and any error."""
        try:
            state = (self._engine.container(self.container_id) or {}).get("State") or {}
        except DockerError:
            return None
        if not state or state.get("Running"):
            return None
        if state.get("OOMKilled"):
            # No peak: the engine's 1 Hz readings (usage less inactive cache) miss the spike that killed it, and
            # the container's cgroup, with the kernel's own peak, is gone with it.
            return f"killed by the OOM killer at its {self._memory_mb} MiB memory limit"
        said = exit_said(state.get("ExitCode"))
        return f"{said}; {state['Error']}" if state.get("Error") else said

    def state_note(self) -> str:
        state = (self._engine.container(self.container_id) or {}).get("State") or {}
        if not state or state.get("Running"):
            return ""
        note = f"[container exited with code {state.get('ExitCode')}"
        if state.get("OOMKilled"):
            note += f"; OOM-killed: it used more than its memory limit of {self._memory_mb} MiB"
        if state.get("Error"):
            note += f"; {state['Error']}"
        return note + "]"

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = self._engine.logs(self.container_id, tail=lines).rstrip()
            note = self.state_note()
        except DockerError as exc:
            return f"[logs unavailable: {exc}]"
        return f"{text}\n{note}".strip() if note else text

    @contextmanager
    def paused(self) -> Iterator[bool]:
        """Frozen (`docker pause`) while the host's speed probe runs: see RunningServer.paused."""
        frozen = False
        try:
            try:
                self._engine.pause(self.container_id)
                frozen = True
            except DockerError:
                pass  # exited, or an engine that cannot pause: the probe runs beside it and says so
            yield frozen
        finally:
            if frozen:
                self._engine.unpause(self.container_id)

    def stop(self) -> None:
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
        try:
            self._engine.stop(self.container_id, grace_s=10)
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            logs = self._engine.logs(self.container_id)
            if self._load_since is not None:  # server.log marked where the load test began, as a local one is
                logs = (self._engine.logs(self.container_id, until=self._load_since).rstrip("\n")
                        + f"\n{LOAD_MARK}\n" + self._engine.logs(self.container_id, since=self._load_since))
            note = self.state_note()
            self.log_path.write_text(logs + (f"\n{note}\n" if note and "code 0" not in note else ""),
                                     encoding="utf-8")
        except (DockerError, OSError):
            pass
        finally:
            try:
                self._remove()
            except DockerError:
                pass
            self.container.stats.unwatch(self.container_id)


class DockerServer(ContainerServer):
    """A server in a container of this machine's engine: its processes are this host's too."""

    def __init__(self, runtime: DockerRuntime, plan: ContainerPlan, container_id: str, log_path: Path):
        super().__init__(plan.name, Container(runtime.engine, runtime.stats, container_id), log_path,
                         runtime.profile.memory_mb, lambda: runtime.engine.remove(container_id))
        self.plan = plan
        self._pid: int | None = None

    def root_pid(self) -> int | None:
        """The container's first process as the host sees it (State.Pid)."""
        if self._stopped:
            return None
        if not self._pid:
            try:
                self._pid = ((self._engine.container(self.container_id) or {}).get("State") or {}).get("Pid")
            except DockerError:
                return None
        return int(self._pid) if self._pid else None

    def process_tree_usage(self) -> Usage | None:
        """RSS and CPU time of the container's processes as the host sees them (beside the cgroup's view)."""
        pid = self.root_pid()
        if not pid:
            return None
        try:
            return tree_usage(pid)
        except psutil.Error:
            return None


class ContainerInfra:
    """Redis and the API service as containers (the docker runtime's on this engine, the swarm's on its infra
    node): the servers reach them by their names in the network, the orchestrator at redis_url and api_url.
    `remove(name)` takes one away for good once stopped and its log kept."""

    server_redis_url = REDIS_URL_IN_NETWORK
    server_api_url = API_URL_IN_NETWORK

    def __init__(self, log_dir: Path, containers: dict[str, Container], redis_url: str, api_url: str,
                 remove: Callable[[str], None]):
        self.log_dir = log_dir
        self.containers = containers  # "redis"/"api"
        self.redis_url = redis_url
        self.api_url = api_url
        self._remove = remove
        self._readers = {name: c.stats.reader(c.id) for name, c in containers.items()}
        self._stopped = False

    def reset(self) -> float:
        return seed.reset(redis_lib.Redis.from_url(self.redis_url))

    def readers(self):
        return dict(self._readers)

    def exited(self, name: str) -> str | None:
        """Why `name` is not running (None while it runs)."""
        container = self.containers[name]
        state = (container.engine.container(container.id) or {}).get("State") or {}
        return None if state.get("Running") else f"the {name} container exited during start-up (code " \
                                                 f"{state.get('ExitCode')})"

    def log_tail(self, name: str) -> str:
        return self.containers[name].engine.logs(self.containers[name].id, tail=30)

    def wait_ready(self, what: str) -> None:
        """Both answering (base.infra_not_ready, `what` naming them in its message); else both stopped and
        removed, and DockerError says why."""
        try:
            why = infra_not_ready(self.redis_url, self.api_url, self.exited, self.log_tail, what)
        except BaseException:
            self.stop()
            raise
        if why:
            self.stop()
            raise DockerError(why)

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        for name, container in self.containers.items():
            try:
                container.engine.stop(container.id, grace_s=3)
                log_name = "api-service.log" if name == "api" else f"{name}.log"
                (self.log_dir / log_name).write_text(container.engine.logs(container.id), encoding="utf-8")
            except (DockerError, OSError):
                pass
            try:
                self._remove(name)
            except DockerError:
                pass
            container.stats.unwatch(container.id)


class DockerRuntime(Runtime):
    name = "docker"
    build_workers = 1

    def __init__(self, profile: ResourceProfile, log=print):
        super().__init__(profile)
        self.log = log
        self.engine = ensure_engine(log)
        self.compose = compose_command()
        info = self.engine.info()
        # What the daemon says it cannot enforce (docker prints these as WARNINGs and runs unlimited).
        self.limit_warnings = [w for w in (info.get("Warnings") or []) if any(
            k in w.lower() for k in ("cpu", "memory", "swap limit", "cgroup"))]
        self.limits_supported = bool(info.get("CpuCfsQuota", True) and info.get("MemoryLimit", True)
                                     and (info.get("CPUSet", True) or not profile.cpuset))
        self.project = f"{PROJECT_PREFIX}{os.getpid()}"
        self.specs: dict[str, ServerSpec] = {}
        self.plans: dict[str, ContainerPlan] = {}
        self.builder = ImageBuilder(self.engine)
        self.stats = StatsHub(self.engine)
        self._compose_dir: Path | None = None
        self._closed = False
        sweep_stale_projects(self.engine)
        atexit.register(self.close)

    # -- what run.json records -------------------------------------------------------------------------------
    def limits_support(self) -> CgroupSupport:
        # The engine applies the limits; whether it can is recorded here and per server (limits_applied).
        return CgroupSupport(version=None, applied=self.limits_supported, note=None if self.limits_supported else
                             "; ".join(self.limit_warnings) or "the engine cannot enforce CPU/memory limits")

    def environment(self) -> DockerEnvironment:
        base = self.engine.image(BASE_IMAGE) or {}
        return DockerEnvironment(**self.engine.describe(), compose=compose_version(), project=self.project,
                                 base_image=BASE_IMAGE, base_image_id=base.get("Id"),
                                 limits_supported=self.limits_supported, limit_warnings=self.limit_warnings)

    # -- builds ----------------------------------------------------------------------------------------------
    def plan(self, spec: ServerSpec) -> ContainerPlan:
        if spec.name not in self.plans:
            self.plans[spec.name] = container_plan(spec)
            self.specs[spec.name] = spec
            if self._compose_dir:
                self._write_compose()
        return self.plans[spec.name]

    def build_infra(self, log_path: Path) -> BuildOutcome:
        return self.builder.build_infra(log_path)

    def build_key(self, spec: ServerSpec) -> str:
        return spec.name  # one image per server: variants have stages of their own

    def build_server(self, spec: ServerSpec, log_path: Path) -> BuildOutcome:
        try:
            self.plan(spec)
        except DockerUnsupported as exc:
            return BuildOutcome("skipped", 0.0, str(exc), None)
        except DockerConfigError as exc:
            return BuildOutcome("failed", 0.0, str(exc), None)
        return self.builder.build_server(spec, log_path)

    # -- compose --------------------------------------------------------------------------------------------
    def _write_compose(self) -> None:
        assert self._compose_dir is not None
        doc, _ = document(list(self.specs.values()), ROOT)
        (self._compose_dir / "docker-compose.yml").write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
        # The run's only change to the committed file: no healthcheck probes inside measured containers
        # (the orchestrator polls readiness itself, from outside).
        override = {"services": {name: {"healthcheck": {"test": ["NONE"]}} for name in doc["services"]}}
        (self._compose_dir / "docker-compose.run.yml").write_text(json.dumps(override, indent=2) + "\n",
                                                                   encoding="utf-8")

    def _compose_env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("MCPBENCH_") and k != "COMPOSE_PROFILES"}
        env.update({
            "MCPBENCH_CPUS": f"{self.profile.cpus:g}",
            "MCPBENCH_MEMORY_MB": str(self.profile.memory_mb),
            "MCPBENCH_SERVER_CPUSET": self.profile.cpuset or "",
            "MCPBENCH_HARNESS_CPUSET": ",".join(map(str, self.profile.harness_cpus or ())),
            "MCPBENCH_SERVER_PORT": "", "MCPBENCH_REDIS_PORT": "", "MCPBENCH_API_PORT": "",
        })
        return env

    def _compose(self, *args: str, env: dict[str, str] | None = None, timeout_s: float = 300) -> str:
        assert self._compose_dir is not None
        argv = [*self.compose, "-p", self.project, "--project-directory", str(ROOT),
                "-f", str(self._compose_dir / "docker-compose.yml"),
                "-f", str(self._compose_dir / "docker-compose.run.yml"), *args]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s,
                                  env=env or self._compose_env(), stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as exc:
            raise DockerError(f"`docker compose {' '.join(args)}` did not finish within {timeout_s:g} s") from exc
        if done.returncode != 0:
            raise DockerError(f"`docker compose {' '.join(args)}` failed (exit {done.returncode}):\n"
                              f"{(done.stderr or done.stdout).strip()[-3000:]}")
        return done.stdout

    def _container_of(self, service: str) -> str:
        found = self.engine.containers({PROJECT_LABEL: self.project, SERVICE_LABEL: service})
        if not found:
            raise DockerError(f"compose created no container for {service}")
        return found[0]["Id"]

    def _require_image(self, tag: str, what: str) -> None:
        if not self.engine.image(tag):
            raise DockerError(f"the image {tag} ({what}) is not built: run `mcpbench images build` "
                              "(or drop --no-build)")

    # -- infrastructure ---------------------------------------------------------------------------------------
    def start_infra(self, log_dir: Path, redis: bool = True) -> ContainerInfra:  # always both: not infra_optional
        log_dir.mkdir(parents=True, exist_ok=True)
        self._compose_dir = log_dir
        self._write_compose()
        self._require_image(REDIS_IMAGE, "Redis")
        self._require_image(API_IMAGE, "the API service")
        self._compose("up", "--detach", "--no-build", "--no-deps", "--force-recreate", "redis", "api")
        ids = {"redis": self._container_of("redis"), "api": self._container_of("api")}
        redis_url = f"redis://127.0.0.1:{self.engine.published_port(ids['redis'], 6379)}"
        api_url = f"http://127.0.0.1:{self.engine.published_port(ids['api'], CONTAINER_PORT)}"
        infra = ContainerInfra(log_dir, {name: Container(self.engine, self.stats, ref) for name, ref in ids.items()},
                               redis_url, api_url, lambda name: self.engine.remove(ids[name]))
        infra.wait_ready("the {} container")
        return infra

    # -- servers ------------------------------------------------------------------------------------------------
    def runtime_version(self, spec: ServerSpec, infra: InfraHandle | None) -> str | None:
        """What the image's own program (its CMD) says it is, run in a throw-away container."""
        if not spec.info.version_args:
            return None
        tag = self.plan(spec).image
        command = ((self.engine.image(tag) or {}).get("Config") or {}).get("Cmd") or []
        if not command:
            return None
        return versions.probe(["docker", "run", "--rm", "--network", "none", "--entrypoint", command[0], tag,
                               *spec.info.version_args])

    def start(self, spec: ServerSpec, infra: InfraHandle | None, log_path: Path) -> DockerServer:
        if self._compose_dir is None:
            raise StartError("start_infra() must run before start()")
        try:
            plan = self.plan(spec)
            self._require_image(plan.image, spec.name)
            self._compose("up", "--no-start", "--no-build", "--no-deps", "--force-recreate", spec.name,
                          env=self._compose_env())
            container_id = self._container_of(spec.name)
        except (DockerError, DockerConfigError) as exc:
            raise StartError(str(exc)) from exc
        server = DockerServer(self, plan, container_id, log_path)

        try:
            server.limits_applied = self._limits_applied(container_id)
            started = time.monotonic()
            self.engine.start(container_id)
            try:
                port = self.engine.published_port(container_id, CONTAINER_PORT)
            except DockerError:
                if not server.alive():  # it exited before the engine even reported its port
                    raise StartError(f"the server exited during start-up: {server.ended_said()}") from None
                raise
            server.url = f"http://127.0.0.1:{port}/mcp"
            wait_until_ready(server.url, server.alive, plan.ready_timeout_s, server.ended_said)
            server.startup_s = time.monotonic() - started
            server.details = started_from(image_details(self.engine, plan.image), "docker",
                                          self.builder.built_s(spec.name), server.startup_s)
        except DockerError as exc:
            tail = server.log_tail()  # before stop() removes the container
            server.stop()
            raise StartError(f"{exc}\n{tail}") from exc
        except BaseException:
            server.stop()
            raise
        return server

    def _limits_applied(self, container_id: str) -> bool:
        host = (self.engine.container(container_id) or {}).get("HostConfig") or {}
        applied = (int(host.get("NanoCpus") or 0) == int(round(self.profile.cpus * 1e9))
                   and int(host.get("Memory") or 0) == self.profile.memory_mb * 2**20
                   and (host.get("CpusetCpus") or "") == (self.profile.cpuset or ""))
        return applied and self.limits_supported

    # -- the end ------------------------------------------------------------------------------------------------
    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            if self._compose_dir:
                try:
                    self._compose("down", "--volumes", "--remove-orphans", "--timeout", "5", timeout_s=120)
                except DockerError:
                    pass
            for container in self.engine.containers({PROJECT_LABEL: self.project}):
                self.engine.remove(container["Id"])
            _remove_network(self.engine, self.project)
        except DockerError:
            pass
        finally:
            self.stats.close()
            self.engine.close()


def _base_override() -> dict[str, str]:
    """MCPBENCH_BASE_IMAGE=debian:trixie-slim builds on the official image instead (a registry is needed)."""
    base = os.environ.get("MCPBENCH_BASE_IMAGE")
    return {"BASE_IMAGE": base} if base else {}


def _write_image_record(path: Path, record: Image) -> None:
    from mcpbench.results.write import write_record

    write_record(path, record)
