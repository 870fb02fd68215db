"""The docker side of a server: its manifest's `[docker]` table, validated, and docker-compose.yml generated
from every manifest (so the compose file cannot drift from them: `mcpbench compose check` and the tests
compare the committed file with a fresh generation).

`[docker]` keys (all optional; docs/server-contract.md):

    [docker]
    dockerfile  = "Dockerfile"          # in the server directory
    context     = ".."                 # the build context, from the server directory: default "." (itself);
                                        #   ".." (servers/) for a server built with its language's shared
                                        #   contract code (servers/common-go, …), which servers/.dockerignore
                                        #   lists
    target      = "runtime"            # build stage to stop at
    build_args  = { KEY = "value" }     # --build-arg
    command     = ["/app/server"]       # argv in the container; default: the image's CMD
    env         = { KEY = "value" }     # extra environment in the container (after [run] env)
    ready_timeout_s = 120               # default: [run] ready_timeout_s
    unsupported = "why"                 # this server cannot run as a container (skipped, with the reason)

    [docker.variants.bun]               # per [variants.<name>]: target, build_args, command, env,
    target  = "bun"                     # ready_timeout_s, unsupported; each variant gets its own image tag
    command = ["bun", "dist/server.js"]

In the container the server listens on 8080 and runs in /app: `{port}` and `{dir}` in commands and
environment values become 8080 and /app.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from mcpbench.catalog.manifest import ServerSpec, _format_validation
from mcpbench.host.paths import API_SERVICE_DIR, ROOT
from mcpbench.host.ports import allowed_hosts

# A part of a Compose file (services, a service, its build): the compose-spec's own structure.
ComposeDoc = dict[str, Any]

CONTAINER_PORT = 8080
# Inside a container a server listens on every interface of its own network namespace: the compose network and
# the port published on the host's 127.0.0.1 (below) are how anything reaches it.
ALL_INTERFACES = "0.0.0.0"
CONTAINER_DIR = "/app"
IMAGE_PREFIX = "mcpbench/"
BASE_IMAGE = "mcpbench/base:trixie"
REDIS_IMAGE = "mcpbench/redis:latest"
API_IMAGE = "mcpbench/api-service:latest"
LOAD_DRIVER_IMAGE = "mcpbench/load-driver:latest"  # the load driver where a runtime runs it in a container (swarm)
DOCKER_DIR = ROOT / "docker"
COMPOSE_FILE = ROOT / "docker-compose.yml"
REDIS_URL_IN_NETWORK = "redis://redis:6379"
API_URL_IN_NETWORK = f"http://api:{CONTAINER_PORT}"
NETWORK = "bench"

# The compose variables the docker runtime sets from the resource profile (the defaults are the v2
# study's 2 CPUs / 2 GB, unpinned, for a plain `docker compose up`).
DEFAULT_CPUS = "2"
DEFAULT_MEMORY_MB = "2048"


class DockerConfigError(ValueError):
    """A `[docker]` table that cannot be used; the message names the file and the field."""


class DockerUnsupported(DockerConfigError):
    """The manifest says this server cannot run as a container (`unsupported = "why"`)."""


def _stringify(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: str(v) if isinstance(v, int | float) and not isinstance(v, bool) else v for k, v in value.items()}
    return value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DockerVariant(_Strict):
    target: str | None = Field(default=None, min_length=1)
    build_args: dict[str, str] = Field(default_factory=dict)
    command: list[str] | None = Field(default=None, min_length=1)
    env: dict[str, str] = Field(default_factory=dict)
    ready_timeout_s: float | None = Field(default=None, gt=0)
    unsupported: str | None = Field(default=None, min_length=1)  # why it cannot run as a container

    _env = field_validator("env", "build_args", mode="before")(_stringify)


class DockerConfig(DockerVariant):
    dockerfile: str = Field(default="Dockerfile", min_length=1)
    context: str = Field(default=".", min_length=1)
    variants: dict[str, DockerVariant] = Field(default_factory=dict)


@dataclass(frozen=True)
class ContainerPlan:
    """Everything needed to build and run one server as a container."""

    name: str
    image: str
    context: Path
    dockerfile: str
    target: str | None
    build_args: dict[str, str]
    command: tuple[str, ...] | None
    env: dict[str, str]
    ready_timeout_s: float
    manifest_path: Path

    @property
    def build_key(self) -> tuple[Any, ...]:
        """Servers with the same key share one build (then one more tag)."""
        return (str(self.context), self.dockerfile, self.target, tuple(sorted(self.build_args.items())))


@dataclass(frozen=True)
class Excluded:
    name: str
    reason: str
    declared: bool = False  # the manifest says so (`unsupported`), rather than something being wrong


def _substitute(value: str) -> str:
    return value.replace("{port}", str(CONTAINER_PORT)).replace("{dir}", CONTAINER_DIR)


def docker_config(spec: ServerSpec) -> DockerConfig:
    try:
        return DockerConfig.model_validate(spec.docker or {})
    except ValidationError as exc:
        detail = _format_validation(exc).replace("field '", "field 'docker.")
        raise DockerConfigError(f"{spec.manifest_path}: {detail}") from exc


def _variant_names(manifest_path: Path) -> tuple[set[str], set[str]]:
    """(all variant keys, those that replace run.command) of a manifest."""
    raw = tomllib.loads(manifest_path.read_text(encoding="utf-8"))
    variants = raw.get("variants") or {}
    replacing = {k for k, v in variants.items() if isinstance(v, dict) and (v.get("run") or {}).get("command")}
    return set(variants), replacing


def container_plan(spec: ServerSpec) -> ContainerPlan:
    """The validated docker side of one server; DockerConfigError names the file and the field."""
    where = spec.manifest_path
    if spec.overrides:
        raise DockerUnsupported(f"{spec.name}: a --what-if twin ({spec.what_if}) runs under the local runtime only: "
                                "the compose file holds the manifests' servers")
    config = docker_config(spec)
    dockerfile = spec.directory / config.dockerfile
    if not dockerfile.is_file():
        raise DockerConfigError(f"{where}: field 'docker.dockerfile': {config.dockerfile} does not exist in "
                                f"{spec.directory} (every server needs one to run under --runtime docker)")
    override = config.variants.get(spec.name) if spec.variant_of else None
    unsupported = override.unsupported if override and override.unsupported else config.unsupported
    if unsupported:
        field = (f"docker.variants.{spec.name}.unsupported" if override and override.unsupported
                 else "docker.unsupported")
        raise DockerUnsupported(f"{where}: {field}: {unsupported}")
    variants, replacing = _variant_names(where)
    for key in config.variants:
        if key not in variants:
            raise DockerConfigError(f"{where}: field 'docker.variants.{key}': there is no [variants.{key}] in "
                                    f"this manifest")
    if spec.variant_of and spec.name in replacing and not (override and (override.command or override.target)):
        raise DockerConfigError(
            f"{where}: field 'docker.variants.{spec.name}': [variants.{spec.name}] replaces run.command, so its "
            f"container needs its own command (docker.variants.{spec.name}.command) or build stage "
            f"(docker.variants.{spec.name}.target)")
    command = (override.command if override and override.command else None) or config.command
    env = {k: _substitute(v) for k, v in spec.run_env.items()}
    env.update({k: _substitute(v) for k, v in config.env.items()})
    if override:
        env.update({k: _substitute(v) for k, v in override.env.items()})
    context, dockerfile_in_context = spec.directory, config.dockerfile
    if config.context != ".":
        # Resolved: a server directory linked into another servers/ (the tests do) has its siblings, the
        # shared contract code, beside its real path.
        context = (spec.directory.resolve() / config.context).resolve()
        if not context.is_dir():
            raise DockerConfigError(f"{where}: field 'docker.context': {config.context} is not a directory")
        dockerfile_in_context = os.path.relpath(dockerfile.resolve(), context)
    return ContainerPlan(
        name=spec.name,
        image=f"{IMAGE_PREFIX}{spec.name}:latest",
        context=context,
        dockerfile=dockerfile_in_context,
        target=(override.target if override and override.target else None) or config.target,
        build_args={**config.build_args, **(override.build_args if override else {})},
        command=tuple(_substitute(a) for a in command) if command else None,
        env=env,
        ready_timeout_s=(override.ready_timeout_s if override and override.ready_timeout_s else None)
        or config.ready_timeout_s or spec.ready_timeout_s,
        manifest_path=where,
    )


def plans(specs: list[ServerSpec]) -> tuple[list[ContainerPlan], list[Excluded]]:
    done: list[ContainerPlan] = []
    excluded: list[Excluded] = []
    for spec in specs:
        try:
            done.append(container_plan(spec))
        except DockerConfigError as exc:
            excluded.append(Excluded(spec.name, str(exc), isinstance(exc, DockerUnsupported)))
    return done, excluded


# -- the compose document ---------------------------------------------------------------------------------
def contract_environment(name: str) -> dict[str, str]:
    """docs/server-contract.md's variables as a container gets them (limits from the compose variables)."""
    return {
        "HOST": ALL_INTERFACES,
        "ALLOWED_HOSTS": allowed_hosts(name),  # the published port's 127.0.0.1, and the service name in the network
        "PORT": str(CONTAINER_PORT),
        "REDIS_URL": REDIS_URL_IN_NETWORK,
        "API_SERVICE_URL": API_URL_IN_NETWORK,
        "SERVER_TYPE": name,
        "CPU_LIMIT": f"${{MCPBENCH_CPUS:-{DEFAULT_CPUS}}}",
        "MEMORY_LIMIT_MB": f"${{MCPBENCH_MEMORY_MB:-{DEFAULT_MEMORY_MB}}}",
    }


def _http_check(path: str, method: str = "GET", body: str = "") -> list[str]:
    """A healthcheck without curl in the image: bash's /dev/tcp, HTTP/1.0, a 2xx status line."""
    request = f"{method} {path} HTTP/1.0\\r\\nHost: localhost\\r\\n"
    if body:
        request += ("Content-Type: application/json\\r\\nAccept: application/json, text/event-stream\\r\\n"
                    f"Content-Length: {len(body)}\\r\\n")
    request += "\\r\\n" + body
    script = (f"exec 3<>/dev/tcp/127.0.0.1/{CONTAINER_PORT} && printf '%b' '{request}' >&3 "
              "&& head -c 12 <&3 | grep -q ' 2[0-9][0-9]'")
    return ["CMD", "bash", "-c", script]


TOOLS_LIST = '{"jsonrpc":"2.0","id":0,"method":"tools/list"}'


def _relative(path: Path, root: Path) -> str:
    try:
        return "./" + path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.resolve().as_posix()


def document(specs: list[ServerSpec], root: Path = ROOT) -> tuple[ComposeDoc, list[Excluded]]:
    """The compose document (a dict) for these servers, and the servers left out with why."""
    server_plans, excluded = plans(specs)
    services: ComposeDoc = {
        "redis": {
            "image": REDIS_IMAGE,
            "build": {"context": _relative(DOCKER_DIR / "redis", root)},
            "cpuset": "${MCPBENCH_HARNESS_CPUSET:-}",
            "ports": ["127.0.0.1:${MCPBENCH_REDIS_PORT:-}:6379"],
            "networks": [NETWORK],
            "healthcheck": {"test": ["CMD", "redis-cli", "ping"], "interval": "1s", "timeout": "3s",
                            "retries": 30},
        },
        "api": {
            "image": API_IMAGE,
            # compose resolves `dockerfile` against the context
            "build": {"context": _relative(API_SERVICE_DIR, root),
                      "dockerfile": os.path.relpath(DOCKER_DIR / "api-service" / "Dockerfile", API_SERVICE_DIR)},
            "environment": {"HOST": ALL_INTERFACES, "PORT": str(CONTAINER_PORT)},
            "cpuset": "${MCPBENCH_HARNESS_CPUSET:-}",
            "ports": [f"127.0.0.1:${{MCPBENCH_API_PORT:-}}:{CONTAINER_PORT}"],
            "networks": [NETWORK],
            "healthcheck": {"test": _http_check("/health"), "interval": "1s", "timeout": "3s", "retries": 30},
        },
    }
    for plan in sorted(server_plans, key=lambda p: p.name):
        build: ComposeDoc = {"context": _relative(plan.context, root)}
        if plan.dockerfile != "Dockerfile":
            build["dockerfile"] = plan.dockerfile
        if plan.target:
            build["target"] = plan.target
        if plan.build_args:
            build["args"] = dict(sorted(plan.build_args.items()))
        service: ComposeDoc = {
            "image": plan.image,
            "build": build,
            "profiles": [plan.name],
        }
        if plan.command:
            service["command"] = list(plan.command)
        service.update({
            "environment": {**contract_environment(plan.name), **dict(sorted(plan.env.items()))},
            "depends_on": {"redis": {"condition": "service_healthy"}, "api": {"condition": "service_healthy"}},
            "ports": [f"127.0.0.1:${{MCPBENCH_SERVER_PORT:-}}:{CONTAINER_PORT}"],
            "networks": [NETWORK],
            "cpuset": "${MCPBENCH_SERVER_CPUSET:-}",
            "deploy": {"resources": {"limits": {
                "cpus": f"${{MCPBENCH_CPUS:-{DEFAULT_CPUS}}}",
                "memory": f"${{MCPBENCH_MEMORY_MB:-{DEFAULT_MEMORY_MB}}}M"}}},
            "memswap_limit": f"${{MCPBENCH_MEMORY_MB:-{DEFAULT_MEMORY_MB}}}M",
            "init": True,
            "stop_grace_period": "10s",
            "healthcheck": {"test": _http_check("/mcp", "POST", TOOLS_LIST), "interval": "5s", "timeout": "3s",
                            "retries": 3, "start_period": f"{plan.ready_timeout_s:g}s"},
        })
        services[plan.name] = service
    return {"name": "mcpbench", "services": services, "networks": {NETWORK: {}}}, excluded


HEADER = """\
# GENERATED from servers/*/mcpbench.toml by `mcpbench compose generate` — do not edit by hand.
# `mcpbench compose check` (and tests/mcpbench/runtime/test_compose.py) fail when it is stale.
#
# Redis, the API service and every server (one profile per server, so one server at a time):
#   mcpbench images build                    # the images, from the local Debian base (no registry)
#   docker compose --profile rust up -d      # Redis + API service + the rust server
#   docker compose port rust 8080            # where it listens (loopback only)
# Limits and pinning come from variables (defaults: 2 CPUs, 2048 MiB, not pinned); `mcpbench run
# --runtime docker` sets them from the same resource profile as the local runtime:
#   MCPBENCH_CPUS, MCPBENCH_MEMORY_MB, MCPBENCH_SERVER_CPUSET, MCPBENCH_HARNESS_CPUSET,
#   MCPBENCH_SERVER_PORT / MCPBENCH_REDIS_PORT / MCPBENCH_API_PORT (default: a free port on 127.0.0.1).
# Redis starts empty: seed it with `python -m mcpbench.seed \
redis://127.0.0.1:$(docker compose port redis 6379 | cut -d: -f2)`.
"""


def generate(specs: list[ServerSpec], root: Path = ROOT) -> str:
    doc, excluded = document(specs, root)
    text = HEADER
    if excluded:
        text += "#\n# Not containerised:\n"
        prefix = f"{root.resolve().as_posix()}/"
        for item in excluded:  # paths relative to the checkout: the file must not depend on where it lives
            text += f"#   {item.name}: {item.reason.splitlines()[0].replace(prefix, '')}\n"
    return text + "\n" + to_yaml(doc)


# -- a small YAML emitter (block mappings; JSON-style flow for lists of scalars) -----------------------------
_PLAIN = re.compile(r"^[A-Za-z_./][A-Za-z0-9_./@+-]*(:[A-Za-z0-9_./@+-]+)*$")
_RESERVED = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"}


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    if value is None:
        return "null"
    text = str(value)
    if _PLAIN.match(text) and text.lower() not in _RESERVED and ": " not in text:
        return text
    return json.dumps(text, ensure_ascii=False)


def to_yaml(value: Any, indent: int = 0) -> str:
    pad = "  " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        if not value:
            return "{}\n"
        for key, item in value.items():
            key_text = _scalar(key)
            if isinstance(item, dict) and item:
                lines.append(f"{pad}{key_text}:\n{to_yaml(item, indent + 1)}")
            elif isinstance(item, dict):
                lines.append(f"{pad}{key_text}: {{}}\n")
            elif isinstance(item, list):
                if all(not isinstance(i, dict | list) for i in item):
                    lines.append(f"{pad}{key_text}: [{', '.join(_scalar(i) for i in item)}]\n")
                else:
                    lines.append(f"{pad}{key_text}:\n")
                    for element in item:
                        rendered = to_yaml(element, indent + 2).lstrip()
                        lines.append(f"{pad}  - {rendered}")
            else:
                lines.append(f"{pad}{key_text}: {_scalar(item)}\n")
        return "".join(lines)
    return f"{pad}{_scalar(value)}\n"


@dataclass
class ComposeCheck:
    current: bool
    expected: str
    actual: str | None
    excluded: list[Excluded] = field(default_factory=list)


def check(specs: list[ServerSpec], path: Path = COMPOSE_FILE, root: Path = ROOT) -> ComposeCheck:
    expected = generate(specs, root)
    actual = path.read_text(encoding="utf-8") if path.exists() else None
    return ComposeCheck(actual == expected, expected, actual, plans(specs)[1])
