"""A small client of the Docker Engine API (HTTP over the daemon's unix socket) and of `docker compose`.

Only what the docker runtime needs: ping, inspect, start/stop/remove, one-shot stats, logs, image size, and
image builds (the classic builder through the API, so no buildx plugin is needed; every Dockerfile here
also builds with BuildKit). Compose v2 is driven as a CLI; docker/setup-engine.sh provides it.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import struct
import subprocess
import tarfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from .runtime.base import Usage

SETUP_HINT = "docker/setup-engine.sh installs docker.io, starts dockerd and builds compose v2"
MIN_API = (1, 41)  # Docker 20.10: one-shot stats, the oldest engine this runtime is tested on


class DockerError(RuntimeError):
    """Anything the Docker engine or compose refused, with a message a user can act on."""


def _socket_path() -> str | None:
    host = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    return host[len("unix://"):] if host.startswith("unix://") else None


def memory_usage(memory_stats: dict[str, Any]) -> int | None:
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


def usage_from_stats(stats: dict[str, Any]) -> Usage | None:
    """Cumulative CPU time (ns, all CPUs) and current memory from one Engine API stats reading."""
    try:
        cpu = int(stats["cpu_stats"]["cpu_usage"]["total_usage"])
    except (KeyError, TypeError, ValueError):
        return None
    memory = memory_usage(stats.get("memory_stats") or {})
    if memory is None:
        return None
    return Usage(cpu, memory)


def cpu_percent(previous: dict[str, Any], current: dict[str, Any]) -> float:
    """`docker stats`' CPU %: the container's share of the host's CPU time over the interval × online CPUs."""
    cpu_delta = current["cpu_stats"]["cpu_usage"]["total_usage"] - previous["cpu_stats"]["cpu_usage"]["total_usage"]
    system_delta = current["cpu_stats"].get("system_cpu_usage", 0) - previous["cpu_stats"].get("system_cpu_usage", 0)
    online = current["cpu_stats"].get("online_cpus") or len(
        current["cpu_stats"]["cpu_usage"].get("percpu_usage") or []) or 1
    if system_delta <= 0 or cpu_delta < 0:
        return 0.0
    return cpu_delta / system_delta * online * 100.0


def demux_logs(raw: bytes) -> str:
    """Container logs without a TTY come as 8-byte-framed stdout/stderr chunks; join them in order."""
    out = bytearray()
    view = memoryview(raw)
    while len(view) >= 8 and view[0] in (0, 1, 2) and view[1:4] == b"\0\0\0":
        (size,) = struct.unpack(">I", view[4:8])
        out += view[8:8 + size]
        view = view[8 + size:]
    out += view  # a TTY container's logs are not framed
    return out.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class BuildResult:
    image_id: str
    log: str


class Engine:
    """The Engine API over a unix socket, with the API version the daemon speaks (at least 1.41)."""

    def __init__(self, socket_path: str | None = None, timeout_s: float = 30.0):
        path = socket_path or _socket_path()
        if not path:
            raise DockerError(f"DOCKER_HOST={os.environ.get('DOCKER_HOST')} is not a unix socket; the docker "
                              "runtime talks to a local engine only")
        if not os.path.exists(path):
            raise DockerError(f"no Docker daemon: {path} does not exist ({SETUP_HINT})")
        self.socket_path = path
        self._raw = httpx.Client(transport=httpx.HTTPTransport(uds=path), base_url="http://docker",
                                 timeout=timeout_s)
        try:
            version = self._raw.get("/version").json()
        except (httpx.HTTPError, ValueError) as exc:
            self._raw.close()
            raise DockerError(f"no Docker daemon answers on {path} ({exc}); {SETUP_HINT}") from exc
        self.version: dict[str, Any] = version
        api = tuple(int(p) for p in str(version.get("ApiVersion", "0.0")).split("."))
        if api < MIN_API:
            self._raw.close()
            raise DockerError(f"the Docker engine {version.get('Version')} speaks API {version.get('ApiVersion')}; "
                              f"mcpbench needs {MIN_API[0]}.{MIN_API[1]}+ (Docker 20.10 or newer)")
        self.api = f"v{api[0]}.{api[1]}"

    # -- plumbing ----------------------------------------------------------------------------------------
    def _url(self, path: str) -> str:
        return f"/{self.api}{path}"

    def _request(self, method: str, path: str, ok: Iterable[int] = (200, 201, 204), **kwargs: Any) -> httpx.Response:
        try:
            response = self._raw.request(method, self._url(path), **kwargs)
        except httpx.HTTPError as exc:
            raise DockerError(f"the Docker daemon did not answer {method} {path}: {exc}") from exc
        if response.status_code not in ok:
            try:
                message = response.json().get("message", response.text)
            except ValueError:
                message = response.text
            raise DockerError(f"{method} {path}: {response.status_code} {message}".strip())
        return response

    def close(self) -> None:
        self._raw.close()

    # -- the daemon ----------------------------------------------------------------------------------------
    def info(self) -> dict[str, Any]:
        return self._request("GET", "/info").json()

    def describe(self) -> dict[str, Any]:
        """What run.json records about the engine."""
        info = self.info()
        return {"engine": self.version.get("Version"), "api": self.version.get("ApiVersion"),
                "os": info.get("OperatingSystem"), "storage_driver": info.get("Driver"),
                "cgroup_version": int(info.get("CgroupVersion") or 1), "cgroup_driver": info.get("CgroupDriver"),
                "cpus": info.get("NCPU"), "memory_gb": round((info.get("MemTotal") or 0) / 2**30, 1)}

    # -- containers ----------------------------------------------------------------------------------------
    def container(self, ref: str) -> dict[str, Any] | None:
        response = self._request("GET", f"/containers/{ref}/json", ok=(200, 404))
        return None if response.status_code == 404 else response.json()

    def containers(self, labels: dict[str, str] | None = None, all_: bool = True) -> list[dict[str, Any]]:
        filters = {"label": [f"{k}={v}" if v else k for k, v in (labels or {}).items()]}
        return self._request("GET", "/containers/json",
                             params={"all": str(all_).lower(), "filters": json.dumps(filters)}).json()

    def start(self, ref: str) -> None:
        self._request("POST", f"/containers/{ref}/start", ok=(204, 304))

    def stop(self, ref: str, grace_s: int = 10) -> None:
        self._request("POST", f"/containers/{ref}/stop", ok=(204, 304, 404), params={"t": grace_s},
                      timeout=grace_s + 30)

    def remove(self, ref: str) -> None:
        self._request("DELETE", f"/containers/{ref}", ok=(204, 404, 409), params={"force": "true", "v": "true"})

    def stats(self, ref: str) -> dict[str, Any]:
        """One reading, without the daemon's one-second wait for a second sample (one-shot, API 1.41+)."""
        return self._request("GET", f"/containers/{ref}/stats",
                             params={"stream": "false", "one-shot": "true"}).json()

    def usage(self, ref: str) -> Usage | None:
        try:
            return usage_from_stats(self.stats(ref))
        except DockerError:
            return None

    def logs(self, ref: str, tail: int | None = None) -> str:
        params = {"stdout": "true", "stderr": "true", "tail": str(tail) if tail else "all"}
        response = self._request("GET", f"/containers/{ref}/logs", ok=(200, 404), params=params)
        return "" if response.status_code == 404 else demux_logs(response.content)

    def published_port(self, ref: str, container_port: int) -> int:
        details = self.container(ref)
        bindings = ((details or {}).get("NetworkSettings", {}).get("Ports") or {}).get(f"{container_port}/tcp")
        for binding in bindings or []:
            if binding.get("HostPort"):
                return int(binding["HostPort"])
        raise DockerError(f"container {ref} publishes no host port for {container_port}/tcp")

    # -- images ----------------------------------------------------------------------------------------------
    def image(self, ref: str) -> dict[str, Any] | None:
        response = self._request("GET", f"/images/{ref}/json", ok=(200, 404))
        return None if response.status_code == 404 else response.json()

    def build(self, context: Path, tag: str, dockerfile: str = "Dockerfile", target: str | None = None,
              build_args: dict[str, str] | None = None, labels: dict[str, str] | None = None,
              extra_files: dict[str, bytes] | None = None, log: io.TextIOBase | None = None,
              timeout_s: float = 3600, no_cache: bool = False) -> BuildResult:
        """Build with the classic builder (no buildx needed); `extra_files` are added to the context."""
        body = _context_tar(context, extra_files or {})
        params: dict[str, str] = {"t": tag, "dockerfile": dockerfile, "rm": "1", "forcerm": "1",
                                  "buildargs": json.dumps(build_args or {}), "labels": json.dumps(labels or {}),
                                  "version": "1"}
        if target:
            params["target"] = target
        if no_cache:
            params["nocache"] = "1"
        lines: list[str] = []
        image_id = None
        error = None
        try:
            with self._raw.stream("POST", self._url("/build"), params=params, content=body,
                                  headers={"Content-Type": "application/x-tar"},
                                  timeout=httpx.Timeout(timeout_s, connect=30)) as response:
                if response.status_code != 200:
                    response.read()
                    raise DockerError(f"docker build {tag}: {response.status_code} {response.text.strip()}")
                for event in _json_stream(response.iter_bytes()):
                    text = event.get("stream") or event.get("status") or ""
                    if "aux" in event and isinstance(event["aux"], dict):
                        image_id = event["aux"].get("ID", image_id)
                    if event.get("error"):
                        error = event["error"]
                        text = f"ERROR: {error}\n"
                    if text:
                        lines.append(text)
                        if log:
                            log.write(text)
                            log.flush()
        except httpx.HTTPError as exc:
            raise DockerError(f"docker build {tag}: the daemon stopped answering ({exc})") from exc
        output = "".join(lines)
        if error:
            tail = "\n".join(output.splitlines()[-20:])
            raise DockerError(f"docker build {tag} failed: {error.strip()}\n{tail}")
        found = self.image(tag)
        if not found:
            raise DockerError(f"docker build {tag} finished without an image:\n{output[-2000:]}")
        return BuildResult(found["Id"], output)


def _json_stream(chunks: Iterator[bytes]) -> Iterator[dict[str, Any]]:
    buffer = b""
    decoder = json.JSONDecoder()
    for chunk in chunks:
        buffer += chunk
        text = buffer.decode("utf-8", errors="replace")
        position = 0
        while True:
            while position < len(text) and text[position] in " \r\n\t":
                position += 1
            if position >= len(text):
                break
            try:
                obj, end = decoder.raw_decode(text, position)
            except ValueError:
                break
            position = end
            if isinstance(obj, dict):
                yield obj
        buffer = text[position:].encode("utf-8")


def _dockerignore(context: Path) -> list[str]:
    path = context / ".dockerignore"
    if not path.exists():
        return []
    patterns = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            patterns.append(line)
    return patterns


def _pattern(body: str) -> re.Pattern[str]:
    """A .dockerignore pattern as a regex: `**` any number of directories, `*` and `?` within one."""
    out = []
    i = 0
    while i < len(body):
        if body.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif body.startswith("**", i):
            out.append(".*")
            i += 2
        elif body[i] == "*":
            out.append("[^/]*")
            i += 1
        elif body[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(body[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def _ignored(relative: str, patterns: list[str]) -> bool:
    """.dockerignore semantics: the last matching pattern wins, `!` re-includes, and a pattern that
    matches a directory covers everything below it."""
    parts = relative.split("/")
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    ignored = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        body = os.path.normpath((pattern[1:] if negate else pattern).strip()).lstrip("/")
        regex = _pattern(body)
        if any(regex.match(prefix) for prefix in prefixes):
            ignored = not negate
    return ignored


def _context_tar(context: Path, extra_files: dict[str, bytes]) -> bytes:
    patterns = _dockerignore(context)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for root, dirs, files in os.walk(context):
            rel_root = os.path.relpath(root, context)
            rel_root = "" if rel_root == "." else rel_root
            kept = []
            for name in sorted(dirs):
                rel = f"{rel_root}/{name}" if rel_root else name
                if not _ignored(rel, patterns) or any(p.startswith("!") for p in patterns):  # may re-include
                    kept.append(name)
            dirs[:] = kept
            for name in sorted(files):
                rel = f"{rel_root}/{name}" if rel_root else name
                if _ignored(rel, patterns) and rel not in ("Dockerfile", ".dockerignore"):
                    continue
                tar.add(os.path.join(root, name), arcname=rel, recursive=False)
        for name, data in extra_files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            info.mtime = int(time.time())
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


# -- compose ---------------------------------------------------------------------------------------------
def compose_command() -> list[str]:
    """`docker compose` (v2). Compose v1 (Debian's docker-compose 1.29) is not used: it applies
    deploy.resources.limits only with --compatibility and lacks `up --wait`; setup-engine.sh builds v2."""
    docker = shutil.which("docker")
    if not docker:
        raise DockerError(f"no docker CLI on PATH ({SETUP_HINT})")
    try:
        out = subprocess.run([docker, "compose", "version", "--short"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DockerError(f"`docker compose version` failed: {exc}") from exc
    version = out.stdout.strip().lstrip("v")
    if out.returncode != 0 or not version.startswith("2."):
        raise DockerError(f"compose v2 is not installed as a docker CLI plugin ({SETUP_HINT})"
                          + (f"; `docker compose version` said: {out.stderr.strip()[:200]}" if out.stderr else ""))
    return [docker, "compose"]


def compose_version() -> str | None:
    try:
        cmd = compose_command()
        return subprocess.run([*cmd, "version", "--short"], capture_output=True, text=True,
                              timeout=30).stdout.strip() or None
    except (DockerError, OSError, subprocess.TimeoutExpired):
        return None
