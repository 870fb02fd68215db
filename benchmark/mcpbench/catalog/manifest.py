"""Discovers `servers/*/mcpbench.toml` and validates each into typed server specs.

A broken manifest becomes a ManifestError naming the file and the field; it never stops the others.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from mcpbench import dimensions
from mcpbench.results.model import Record, Server
from mcpbench.workload.file import Workload

MANIFEST_NAME = "mcpbench.toml"
ProtocolRevision = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")]  # an MCP revision: 2025-06-18
SdkKind = Literal["official", "community", "framework", "none"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ServerInfo(_Strict):
    display_name: str = Field(min_length=1)
    language: str = Field(min_length=1)
    runtime: str = Field(min_length=1)
    sdk: str = Field(min_length=1)
    sdk_version: str = Field(min_length=1)
    framework: str | None = None
    description: str | None = None
    requires: list[str] = Field(default_factory=list)
    jdk: int | None = Field(default=None, ge=8)
    # Arguments that make the run command's program print its version instead of serving
    # (["--version"] for python, node, bun, java); none for a compiled server, whose program is the server.
    version_args: list[str] | None = None
    # The MCP protocol revisions the server's SDK accepts, oldest first (read from the SDK's own list of
    # supported versions); the report shows them as a matrix and loads that speak a revision only go to
    # servers that list it. None: not recorded.
    protocols: list[ProtocolRevision] | None = None
    # The published v2 study's name for this server, where it differs from ours (report: v2 comparison).
    v2_name: str | None = None
    # What kind of MCP layer it is (the report's filters and decision page): the protocol's own SDK for the
    # language, a community SDK, a framework's MCP layer (Spring AI, Quarkus, Micronaut, FastMCP), or none.
    sdk_kind: SdkKind | None = None
    # The dimensions it does not offer (mcpbench/dimensions/: a registered dimension's name), or a point's opt-out
    # (Point.opt_out: `resources`, `prompts`, `completion` of the surface), each with its reason:
    # `progress` where its SDK cannot stream progress notifications on a call's reply (verify then holds it to the
    # tool's answer only). verify names each, as a warning; the dimension lists it as unavailable with the reason
    # instead of measuring it.
    unsupported: dict[str, Annotated[str, Field(min_length=1)]] = Field(default_factory=dict)
    # The server whose SDK this one measures again around another framework, runtime or layer of the same SDK
    # (bun and deno: nodejs's SDK on other runtimes; java-webflux: Spring AI on WebFlux). The first run
    # (`--first-run`, scripts/bench.sh) measures each SDK once and leaves the alternatives out unless named: 30
    # minutes on two cores hold about 13 servers (docs/first-run-profile.md).
    alternative_to: str | None = Field(default=None, min_length=1)

    @field_validator("unsupported")
    @classmethod
    def _registered_dimensions(cls, value: dict[str, str]) -> dict[str, str]:
        known = dimensions.opt_outs()
        unknown = sorted(set(value) - set(known))
        if unknown:
            raise ValueError(f"{', '.join(map(repr, unknown))}: no such dimension or point "
                             f"(a dimension's name or a point's opt-out: {', '.join(known)})")
        return value


DEFAULT_BUILD_EXPECTED_S = 30.0


class BuildSection(_Strict):
    command: str = Field(min_length=1)
    timeout_s: float = Field(default=1800, gt=0)
    # About how long a cold build takes on a 2-core machine: builds run several at a time, longest first, so the
    # longest is not the one left running alone at the end (rust, started last, ran 200 s of its 257 s alone).
    expected_s: float = Field(default=DEFAULT_BUILD_EXPECTED_S, gt=0)


def _stringify_numbers(value: Any) -> Any:
    # TOML integers (THREADS = 4) are as natural as strings for environment values.
    if isinstance(value, dict):
        return {k: str(v) if isinstance(v, int | float) and not isinstance(v, bool) else v
                for k, v in value.items()}
    return value


class RunSection(_Strict):
    command: list[str] = Field(min_length=1)
    env: dict[str, str] = Field(default_factory=dict)
    ready_timeout_s: float = Field(default=120, gt=0)

    _env = field_validator("env", mode="before")(_stringify_numbers)


class StdioSection(_Strict):
    """How the server serves MCP over stdio (newline-delimited JSON-RPC on stdin/stdout), started by the
    stdio load driver instead of the runtime. Its environment is the run command's plus `env`."""

    command: list[str] = Field(min_length=1)
    env: dict[str, str] = Field(default_factory=dict)

    _env = field_validator("env", mode="before")(_stringify_numbers)


class ServerOverride(_Strict):
    display_name: str | None = None
    language: str | None = None
    runtime: str | None = None
    sdk: str | None = None
    sdk_version: str | None = None
    framework: str | None = None
    description: str | None = None
    requires: list[str] | None = None
    jdk: int | None = Field(default=None, ge=8)
    version_args: list[str] | None = None
    protocols: list[ProtocolRevision] | None = None
    v2_name: str | None = None
    sdk_kind: SdkKind | None = None
    alternative_to: str | None = Field(default=None, min_length=1)


class VariantRun(_Strict):
    command: list[str] | None = Field(default=None, min_length=1)
    env: dict[str, str] = Field(default_factory=dict)
    ready_timeout_s: float | None = Field(default=None, gt=0)

    _env = field_validator("env", mode="before")(_stringify_numbers)


class Variant(ServerOverride):
    build: BuildSection | None = None
    # The question a variant answers when it is another configuration of a stack already in the lineup rather
    # than a stack of its own ("the v2 study's 4 workers", "an end-of-life Node.js"). `--stacks-only` (the
    # first-run profile) leaves such variants out unless named: a first run measures each stack once.
    what_if: str | None = Field(default=None, min_length=1)
    run: VariantRun = Field(default_factory=VariantRun)
    stdio: StdioSection | None = None  # None: the base server's, run with the variant's run.env


class DockerSection(BaseModel):
    """Read by the docker runtime; kept open here so that runtime can grow without breaking manifests."""

    model_config = ConfigDict(extra="allow")


class Manifest(_Strict):
    server: ServerInfo
    build: BuildSection | None = None
    run: RunSection
    stdio: StdioSection | None = None  # None: the server serves HTTP only
    variants: dict[str, Variant] = Field(default_factory=dict)
    docker: DockerSection | None = None


@dataclass(frozen=True)
class ServerSpec:
    """One benchmarked server: a manifest's base server or one of its variants."""

    name: str
    directory: Path
    manifest_path: Path
    info: ServerInfo
    build_commands: tuple[str, ...]
    build_timeout_s: float
    run_command: tuple[str, ...]
    run_env: dict[str, str]
    ready_timeout_s: float
    variant_of: str | None
    docker: Record
    stdio_command: tuple[str, ...] | None = None  # None: no stdio transport
    stdio_env: dict[str, str] | None = None
    build_expected_s: float = 0.0  # [build] expected_s (0: nothing to build); the longest builds start first
    what_if: str | None = None  # a variant that is a configuration point of its base stack (Variant.what_if)
    # The environment `--what-if` set over the manifest's (catalog/selection.py what_if_twins): a twin that exists
    # for one run only, which no manifest (and so no compose file or image) holds.
    overrides: dict[str, str] = field(default_factory=dict)
    # The calls it is measured with: a server given on the command line names its workload file
    # (catalog/target.py); None is the lineup's (workload/lineup.toml).
    workload: Workload | None = None
    # A server already running, given by its URL (--url): nothing is started, limited or read of it.
    url: str | None = None
    # A command that must succeed before the server counts as started (--ready; {port} put in), polled until it
    # exits 0, before the MCP `initialize` that every start waits for.
    ready_command: str | None = None
    # The point of a dimension this twin measures ("1 MiB", "1,000 extra tools": mcpbench/dimensions/).
    point: str | None = None
    # Given on the command line (catalog/target.py): held to its workload file, not to the server contract (a
    # reference server a dimension calls with its own workload is still held to the contract).
    given: bool = False
    # Why it cannot be measured in this experiment, where its manifest says it does not offer the dimension
    # (ServerInfo.unsupported): listed as unavailable with the reason, never started.
    unavailable: str | None = None

    @property
    def uses_infra(self) -> bool:
        """Whether it reads the suite's Redis and API service, which are then started and Redis re-seeded before
        each of its measurements: every server of the lineup does; a server given on the command line does when its
        workload file says `seeded = true` (workload/lineup.toml does) or reads cancelled calls' work from Redis."""
        if not self.given or self.workload is None:
            return True
        return self.workload.spec.seeded or self.workload.reads_work

    @property
    def alternative_to(self) -> str | None:
        """The server whose SDK it measures again around another framework, runtime or layer (ServerInfo)."""
        return self.info.alternative_to

    @property
    def serves_stdio(self) -> bool:
        return self.stdio_command is not None

    @property
    def serves_http(self) -> bool:
        return bool(self.run_command) or self.url is not None

    @property
    def headers(self) -> dict[str, str]:
        """Sent with every HTTP request to it, the readiness check's included (a target's --header)."""
        return self.workload.headers if self.workload is not None else {}

    def describe(self) -> Server:
        """What results and the report record about this server (server.json): its manifest's server table (the
        keys the model does not name kept beside its fields), its commands, and where it came from. overrides,
        workload, url and point are set only where the server has them: a server.json without them reads null."""
        server = Server(name=self.name, directory=self.directory.name, variant_of=self.variant_of,
                        what_if=self.what_if, **self.info.model_dump(), build=list(self.build_commands),
                        run=list(self.run_command), stdio=list(self.stdio_command) if self.stdio_command else None)
        if self.overrides:
            server.overrides = dict(self.overrides)
        if self.workload:
            server.workload = str(self.workload.path)
        if self.url:
            server.url = self.url
        if self.point:
            server.point = self.point
        return server


@dataclass(frozen=True)
class ManifestError:
    path: Path
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def _format_validation(error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        location = ".".join(str(p) for p in item["loc"]) or "(top level)"
        parts.append(f"field '{location}': {item['msg']}")
    return "; ".join(parts)


def _stdio(section: StdioSection | None,
           run_env: dict[str, str]) -> tuple[tuple[str, ...] | None, dict[str, str] | None]:
    """A spec's stdio_command and stdio_env: the [stdio] command, run with the run command's environment and its
    own (None, None: HTTP only)."""
    if section is None:
        return None, None
    return tuple(section.command), {**run_env, **section.env}


def _specs_from(manifest: Manifest, path: Path) -> list[ServerSpec]:
    directory = path.parent.resolve()
    base_name = directory.name
    base_build = (manifest.build.command,) if manifest.build else ()
    build_timeout = manifest.build.timeout_s if manifest.build else 1800.0
    build_expected = manifest.build.expected_s if manifest.build else 0.0
    docker = manifest.docker.model_dump() if manifest.docker else {}
    stdio_command, stdio_env = _stdio(manifest.stdio, dict(manifest.run.env))
    specs = [
        ServerSpec(
            name=base_name, directory=directory, manifest_path=path, info=manifest.server,
            build_commands=base_build, build_timeout_s=build_timeout, build_expected_s=build_expected,
            run_command=tuple(manifest.run.command), run_env=dict(manifest.run.env),
            ready_timeout_s=manifest.run.ready_timeout_s, variant_of=None, docker=docker,
            stdio_command=stdio_command, stdio_env=stdio_env,
        )
    ]
    for key, variant in manifest.variants.items():
        overrides = variant.model_dump(include=set(ServerOverride.model_fields), exclude_none=True)
        extra_build = (variant.build.command,) if variant.build else ()
        stdio_command, stdio_env = _stdio(variant.stdio or manifest.stdio, {**manifest.run.env, **variant.run.env})
        specs.append(
            ServerSpec(
                name=key, directory=directory, manifest_path=path,
                info=manifest.server.model_copy(update=overrides),
                build_commands=base_build + extra_build,
                build_timeout_s=max(build_timeout, variant.build.timeout_s if variant.build else 0),
                build_expected_s=build_expected + (variant.build.expected_s if variant.build else 0),
                run_command=tuple(variant.run.command or manifest.run.command),
                run_env={**manifest.run.env, **variant.run.env},
                ready_timeout_s=variant.run.ready_timeout_s or manifest.run.ready_timeout_s,
                variant_of=base_name, docker=docker, what_if=variant.what_if,
                stdio_command=stdio_command, stdio_env=stdio_env,
            )
        )
    return specs


def load_manifest(path: Path) -> list[ServerSpec]:
    """Parse and validate one manifest; raises ValueError with the file and field named."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"not valid TOML: {exc}") from exc
    try:
        manifest = Manifest.model_validate(raw)
    except ValidationError as exc:
        raise ValueError(_format_validation(exc)) from exc
    return _specs_from(manifest, path)


@dataclass(frozen=True)
class Discovery:
    servers: list[ServerSpec]
    errors: list[ManifestError]

    def by_name(self) -> dict[str, ServerSpec]:
        return {spec.name: spec for spec in self.servers}


def discover(servers_dir: Path) -> Discovery:
    """Every `<servers_dir>/*/mcpbench.toml`, sorted by directory; duplicate names are errors."""
    specs: list[ServerSpec] = []
    errors: list[ManifestError] = []
    seen: dict[str, Path] = {}
    for path in sorted(servers_dir.glob(f"*/{MANIFEST_NAME}")):
        try:
            loaded = load_manifest(path)
        except (ValueError, OSError) as exc:
            errors.append(ManifestError(path, str(exc)))
            continue
        for spec in loaded:
            if spec.name in seen:
                errors.append(ManifestError(
                    path, f"server name '{spec.name}' is already defined by {seen[spec.name]}"))
                continue
            seen[spec.name] = path
            specs.append(spec)
    for spec in list(specs):
        if spec.alternative_to is not None and spec.alternative_to not in seen:
            errors.append(ManifestError(spec.manifest_path, f"server '{spec.name}': alternative_to names "
                                        f"'{spec.alternative_to}', which no manifest defines"))
            specs.remove(spec)
    return Discovery(specs, errors)
