"""The Docker engine through docker-py (the Docker SDK for Python), and `docker compose` as a CLI.

docker-py does the Engine API's plumbing: the connection and API version, the build context (it applies
.dockerignore and carries a Dockerfile from outside the context into it), log demultiplexing. What stays
here is what the benchmark decides: the errors a user sees, and how a stats reading becomes CPU time and
memory as `docker stats` computes them. Images build with the classic builder through the API, so no
buildx plugin is needed (every Dockerfile here also builds with BuildKit). docker-py has no compose:
compose v2 runs as a CLI plugin, which docker/setup-engine.sh provides.
"""

from __future__ import annotations

import io
import math
import os
import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import docker
import requests
from docker.errors import APIError, DockerException

from mcpbench.host.resources import Usage

# A document of the Docker Engine API (version, inspect, stats, a swarm node or task) as docker-py returns it: the
# engine's own structure, read where used.
EngineDoc = dict[str, Any]

SETUP_HINT = "docker/setup-engine.sh installs docker.io, starts dockerd and builds compose v2"
MIN_API = (1, 41)  # Docker 20.10: one-shot stats, the oldest engine this runtime is tested on


class DockerError(RuntimeError):
    """Anything the Docker engine or compose refused, with a message a user can act on."""


def memory_usage(memory_stats: EngineDoc) -> int | None:
    """Memory in use as `docker stats` computes it: usage minus inactive file cache (cgroup v1 and v2).

    docker/cli: v1 subtracts `total_inactive_file`, v2 `inactive_file`, each only when smaller than usage.
    """
    usage = memory_stats.get("usage")
    if usage is None:
        return None
    stats = memory_stats.get("stats") or {}
    for key in ("total_inactive_file", "inactive_file"):  # v1 first: on v1 both keys exist
        if key in stats:
            inactive = int(stats[key])
            return int(usage) - inactive if inactive < int(usage) else int(usage)
    return int(usage)


def usage_from_stats(stats: EngineDoc) -> Usage | None:
    """Cumulative CPU time (ns, all CPUs) and current memory from one one-shot stats reading.

    CPU % is deliberately not computed from the reading itself. Docker documents two formulas, both over
    one reading's `cpu_stats` minus its `precpu_stats`: cpu_delta / system_cpu_delta × online_cpus × 100
    (`docker stats` on Linux) and cpu_delta / (read − preread) (Windows, which has no system_cpu_usage).
    A one-shot reading (stream=False, one_shot=True: one daemon publication, ≤ 1 s, instead of the two a
    plain stream=False waits for) has no "pre" half: precpu_stats is all zero and preread is
    0001-01-01T00:00:00Z (tests/fixtures/docker-stats/ has a recorded one). Either formula applied to it
    gives an average since the container (or the host) started, not the last second. So the reading stays
    cumulative and CPU % = Δtotal_usage / Δt between two consecutive readings — the read − preread
    formula with the previous reading as the "pre" one; resources.Sampler computes it, as it does for the
    local runtime's processes. The interval is wall time, never system_cpu_delta / online_cpus: the daemon
    sums /proc/stat's user…softirq without steal (on a VM with steal time that undercounts the interval and
    inflates the %), in 10 ms ticks, over the host's CPUs rather than the container's cpuset.
    """
    try:
        cpu = int(stats["cpu_stats"]["cpu_usage"]["total_usage"])
    except (KeyError, TypeError, ValueError):
        return None  # a stopped container's reading has empty cpu_stats
    memory = memory_usage(stats.get("memory_stats") or {})
    if memory is None:
        return None
    return Usage(cpu, memory)


@dataclass(frozen=True)
class BuildResult:
    image_id: str
    log: str


def _reason(exc: BaseException) -> str:
    """The innermost cause of a connection failure ("[Errno 2] No such file or directory"), not the
    three layers of requests and urllib3 wrapped around it."""
    seen = exc
    while (inner := seen.__cause__ or seen.__context__) is not None:
        seen = inner
        if isinstance(seen, OSError) and not isinstance(seen, requests.RequestException):
            return str(seen)
    return str(exc)


def _explain(exc: APIError) -> str:
    return str(exc.explanation or exc).strip()


class Engine:
    """A docker-py client of the local engine, which must speak API 1.41+ (Docker 20.10 or newer).

    The calls go through docker-py's low-level APIClient: each is one Engine API request (the high-level
    models inspect a container before every call, once a second per container in a measurement) and
    returns the Engine's own JSON, which callers and run.json use as it is. One client serves every
    thread (the stats rounds read containers in parallel): its urllib3 pool, which is thread-safe, gives
    each concurrent request a connection of its own.
    """

    def __init__(self, timeout_s: float = 30.0, base_url: str | None = None):
        """The local engine (DOCKER_HOST, the CLI's context or /var/run/docker.sock, which must be local); with
        `base_url` the engine there, wherever it is (unix://, tcp://, ssh://: a swarm node's)."""
        if base_url:
            try:
                # ssh:// through the system's ssh client (its keys, agent and known_hosts), not paramiko. Docker's
                # client takes its timeouts in whole seconds.
                self.client = docker.DockerClient(base_url=base_url, timeout=math.ceil(timeout_s),
                                                  use_ssh_client=base_url.startswith("ssh://"))
            except (DockerException, requests.RequestException) as exc:
                raise DockerError(f"no Docker daemon answers on {base_url} ({_reason(exc)})") from exc
            self.api = self.client.api
        else:
            self._connect_local(timeout_s)
        self.base_url = base_url or "unix:///var/run/docker.sock"
        self.server_version: EngineDoc = self._call("docker version", self.client.version)
        api = tuple(int(p) for p in str(self.server_version.get("ApiVersion", "0.0")).split("."))
        if api < MIN_API:
            self.close()
            raise DockerError(f"the Docker engine {self.server_version.get('Version')} speaks API "
                              f"{self.server_version.get('ApiVersion')}; mcpbench needs {MIN_API[0]}.{MIN_API[1]}+ "
                              "(Docker 20.10 or newer)")

    def _connect_local(self, timeout_s: float) -> None:
        host = os.environ.get("DOCKER_HOST", "")
        if host and not host.startswith("unix://"):
            raise DockerError(f"DOCKER_HOST={host} is not a unix socket; the docker runtime talks to a local "
                              "engine only (it publishes ports on 127.0.0.1 and reads containers' processes)")
        where = host or "unix:///var/run/docker.sock"
        if host and not os.path.exists(host[len("unix://"):]):
            raise DockerError(f"no Docker daemon: {host[len('unix://'):]} does not exist ({SETUP_HINT})")
        try:
            # DOCKER_HOST, else the docker CLI's current context, else /var/run/docker.sock; asks /version.
            self.client = docker.from_env(timeout=math.ceil(timeout_s))
        except DockerException as exc:
            raise DockerError(f"no Docker daemon answers on {where} ({_reason(exc)}); {SETUP_HINT}") from exc
        self.api = self.client.api
        if not self.api.base_url.startswith("http+docker://local"):  # a context that points elsewhere
            self.close()
            raise DockerError(f"the Docker context points at {self.api.base_url}; the docker runtime talks to a "
                              "local engine only (set DOCKER_HOST=unix:///var/run/docker.sock)")

    def _call(self, what: str, fn, *args: Any, absent: tuple[int, ...] = (), **kwargs: Any) -> Any:
        """fn(*args, **kwargs) with docker-py's errors as DockerError; None for a status in `absent`."""
        try:
            return fn(*args, **kwargs)
        except APIError as exc:
            if exc.status_code in absent:
                return None
            raise DockerError(f"{what}: {_explain(exc)}") from exc
        except (DockerException, requests.RequestException) as exc:
            raise DockerError(f"{what}: the Docker daemon did not answer ({_reason(exc)})") from exc

    def close(self) -> None:
        self.client.close()

    # -- the daemon ----------------------------------------------------------------------------------------
    def info(self) -> EngineDoc:
        return self._call("docker info", self.client.info)

    def describe(self) -> EngineDoc:
        """What run.json records about the engine."""
        info = self.info()
        return {"engine": self.server_version.get("Version"), "api": self.server_version.get("ApiVersion"),
                "os": info.get("OperatingSystem"), "storage_driver": info.get("Driver"),
                "cgroup_version": int(info.get("CgroupVersion") or 1), "cgroup_driver": info.get("CgroupDriver"),
                "cpus": info.get("NCPU"), "memory_gb": round((info.get("MemTotal") or 0) / 2**30, 1)}

    # -- containers ----------------------------------------------------------------------------------------
    def container(self, ref: str) -> EngineDoc | None:
        return self._call(f"docker inspect {ref}", self.api.inspect_container, ref, absent=(404,))

    def containers(self, labels: dict[str, str] | None = None, all_: bool = True) -> list[EngineDoc]:
        filters = {"label": [f"{k}={v}" if v else k for k, v in (labels or {}).items()]}
        return self._call("docker ps", self.api.containers, all=all_, filters=filters)

    def start(self, ref: str) -> None:
        self._call(f"docker start {ref}", self.api.start, ref)

    def stop(self, ref: str, grace_s: int = 10) -> None:
        self._call(f"docker stop {ref}", self.api.stop, ref, timeout=grace_s, absent=(404,))

    def pause(self, ref: str) -> None:
        """The container's cgroup freezer, as `docker pause`."""
        self._call(f"docker pause {ref}", self.api.pause, ref)

    def unpause(self, ref: str) -> None:
        self._call(f"docker unpause {ref}", self.api.unpause, ref, absent=(404, 409))

    def remove(self, ref: str) -> None:
        """Force-remove with its anonymous volumes; gone already or being removed is fine."""
        self._call(f"docker rm {ref}", self.api.remove_container, ref, force=True, v=True, absent=(404, 409))

    def stats(self, ref: str) -> EngineDoc:
        """One reading, without the daemon's wait for a second sample (one-shot, API 1.41+). It still waits
        for the daemon's next publication (≤ 1 s): see usage_from_stats for what that reading holds."""
        return self._call(f"docker stats {ref}", self.api.stats, ref, stream=False, one_shot=True)

    def usage(self, ref: str) -> Usage | None:
        try:
            return usage_from_stats(self.stats(ref))
        except DockerError:
            return None

    def logs(self, ref: str, tail: int | None = None, stdout: bool = True, stderr: bool = True,
             since: float | None = None, until: float | None = None) -> str:
        """stdout and stderr, interleaved as written ("" when the container is gone); `since`/`until`: only what
        was written after/before that epoch second."""
        window = {**({"since": since} if since else {}), **({"until": until} if until else {})}
        raw = self._call(f"docker logs {ref}", self.api.logs, ref, stdout=stdout, stderr=stderr,
                         tail=tail if tail else "all", absent=(404,), **window)
        return (raw or b"").decode("utf-8", errors="replace")

    def published_port(self, ref: str, container_port: int) -> int:
        details = self.container(ref)
        bindings = ((details or {}).get("NetworkSettings", {}).get("Ports") or {}).get(f"{container_port}/tcp")
        for binding in bindings or []:
            if binding.get("HostPort"):
                return int(binding["HostPort"])
        raise DockerError(f"container {ref} publishes no host port for {container_port}/tcp")

    def remove_network(self, name: str) -> None:
        """Gone already, still in use (403/409: its containers are being removed) or predefined is fine."""
        self._call(f"docker network rm {name}", self.api.remove_network, name, absent=(403, 404, 409))

    def kill(self, ref: str, signal: str) -> None:
        """A signal to the container's first process; gone or stopped already is fine."""
        self._call(f"docker kill --signal {signal} {ref}", self.api.kill, ref, signal=signal, absent=(404, 409))

    def follow_logs(self, ref: str, stdout: bool = True, stderr: bool = False):
        """The container's output as it is written, in chunks, until it exits (a blocking iterator)."""
        return self._call(f"docker logs --follow {ref}", self.api.logs, ref, stdout=stdout, stderr=stderr,
                          stream=True, follow=True)

    def read_file(self, ref: str, path: str) -> bytes | None:
        """One file of a container (running or exited), as `docker cp` reads it; None when it is not there."""
        found = self._call(f"docker cp {ref}:{path}", self.api.get_archive, ref, path, absent=(404,))
        if found is None:
            return None
        stream, _ = found
        with tarfile.open(fileobj=io.BytesIO(b"".join(stream))) as archive:
            member = next((m for m in archive.getmembers() if m.isfile()), None)
            handle = archive.extractfile(member) if member else None
            return handle.read() if handle else None

    # -- swarm mode (on a manager) ---------------------------------------------------------------------------
    def nodes(self) -> list[EngineDoc]:
        return self._call("docker node ls", self.api.nodes)

    def services(self, labels: dict[str, str] | None = None) -> list[EngineDoc]:
        filters = {"label": [f"{k}={v}" if v else k for k, v in (labels or {}).items()]} if labels else None
        return self._call("docker service ls", self.api.services, filters=filters)

    def tasks(self, service: str) -> list[EngineDoc]:
        return self._call(f"docker service ps {service}", self.api.tasks, filters={"service": service}) or []

    def remove_service(self, ref: str) -> None:
        self._call(f"docker service rm {ref}", self.api.remove_service, ref, absent=(404,))

    def networks(self, labels: dict[str, str] | None = None) -> list[EngineDoc]:
        filters = {"label": [f"{k}={v}" if v else k for k, v in (labels or {}).items()]} if labels else None
        return self._call("docker network ls", self.api.networks, filters=filters)

    def configs_and_secrets(self, labels: dict[str, str]) -> list[EngineDoc]:
        filters = {"label": [f"{k}={v}" if v else k for k, v in labels.items()]}
        return [*self._call("docker config ls", self.api.configs, filters=filters),
                *self._call("docker secret ls", self.api.secrets, filters=filters)]

    def system_time(self) -> str:
        """The engine host's clock as `docker info` reports it (RFC 3339, nanoseconds)."""
        return str(self.info().get("SystemTime"))

    # -- images ----------------------------------------------------------------------------------------------
    def image(self, ref: str) -> EngineDoc | None:
        return self._call(f"docker image inspect {ref}", self.api.inspect_image, ref, absent=(404,))

    def save(self, ref: str):
        """The image as `docker save` writes it, in chunks."""
        return self._call(f"docker save {ref}", self.api.get_image, ref)

    def load(self, chunks) -> None:
        """`docker load` of what save() gave (another engine's), streamed."""
        self._call("docker load", self.api.load_image, chunks, quiet=True)

    def push(self, repository: str, tag: str) -> str:
        """`docker push repository:tag`; the digest the registry gave the manifest (sha256:…)."""
        digest = None
        try:
            for event in self.api.push(repository, tag, stream=True, decode=True):
                if event.get("error"):
                    raise DockerError(f"docker push {repository}:{tag}: {event['error']}")
                digest = (event.get("aux") or {}).get("Digest") or digest
        except APIError as exc:
            raise DockerError(f"docker push {repository}:{tag}: {_explain(exc)}") from exc
        except (DockerException, requests.RequestException) as exc:
            raise DockerError(f"docker push {repository}:{tag}: "
                              f"the Docker daemon did not answer ({_reason(exc)})") from exc
        if not digest:
            raise DockerError(f"docker push {repository}:{tag}: the registry gave no digest")
        return digest

    def tag(self, ref: str, repository: str, tag: str) -> None:
        self._call(f"docker tag {ref} {repository}:{tag}", self.api.tag, ref, repository, tag, force=True)

    def build(self, context: Path, tag: str, dockerfile: str | Path = "Dockerfile", target: str | None = None,
              build_args: dict[str, str] | None = None, labels: dict[str, str] | None = None,
              log: io.TextIOBase | None = None, timeout_s: float = 3600, no_cache: bool = False) -> BuildResult:
        """`docker build` with the classic builder. docker-py sends `context` minus what its .dockerignore
        excludes; a `dockerfile` outside the context (an absolute path) goes into it under a name of its own.

        The low-level build streams the daemon's output, written to `log` as it comes: a long build shows
        progress and a killed one leaves its log (the high-level images.build returns only at the end).
        """
        lines: list[str] = []
        error = None
        try:
            events = self.api.build(path=str(context), dockerfile=str(dockerfile), tag=tag, target=target,
                                    buildargs=build_args or None, labels=labels or None, nocache=no_cache,
                                    rm=True, forcerm=True, timeout=math.ceil(timeout_s), decode=True)
            for event in events:
                text = event.get("stream") or event.get("status") or ""
                if event.get("error"):
                    error = event["error"]
                    text = f"ERROR: {error}\n"
                if text:
                    lines.append(text)
                    if log:
                        log.write(text)
                        log.flush()
        except APIError as exc:
            raise DockerError(f"docker build {tag}: {_explain(exc)}") from exc
        except (DockerException, requests.RequestException) as exc:
            raise DockerError(f"docker build {tag}: the Docker daemon stopped answering ({_reason(exc)})") from exc
        except OSError as exc:  # the context or Dockerfile could not be read
            raise DockerError(f"docker build {tag}: {exc}") from exc
        output = "".join(lines)
        if error:
            tail = "\n".join(output.splitlines()[-20:])
            raise DockerError(f"docker build {tag} failed: {error.strip()}\n{tail}")
        found = self.image(tag)
        if not found:
            raise DockerError(f"docker build {tag} finished without an image:\n{output[-2000:]}")
        return BuildResult(found["Id"], output)


# -- compose ---------------------------------------------------------------------------------------------
def compose_command() -> list[str]:
    """`docker compose` (v2). Compose v1 (Debian's docker-compose 1.29) is not used: it applies
    deploy.resources.limits only with --compatibility and lacks `up --wait`; setup-engine.sh builds v2."""
    docker_cli = shutil.which("docker")
    if not docker_cli:
        raise DockerError(f"no docker CLI on PATH ({SETUP_HINT})")
    try:
        out = subprocess.run([docker_cli, "compose", "version", "--short"], capture_output=True, text=True,
                             timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DockerError(f"`docker compose version` failed: {exc}") from exc
    version = out.stdout.strip().lstrip("v")
    if out.returncode != 0 or not version.startswith("2."):
        raise DockerError(f"compose v2 is not installed as a docker CLI plugin ({SETUP_HINT})"
                          + (f"; `docker compose version` said: {out.stderr.strip()[:200]}" if out.stderr else ""))
    return [docker_cli, "compose"]


def compose_version() -> str | None:
    try:
        cmd = compose_command()
        return subprocess.run([*cmd, "version", "--short"], capture_output=True, text=True,
                              timeout=30).stdout.strip() or None
    except (DockerError, OSError, subprocess.TimeoutExpired):
        return None
