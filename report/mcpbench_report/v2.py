"""The published "MCP Server Performance Benchmark v2" figures, and ours side by side as ratios.

Absolute numbers differ by machine (the study: 2 vCPU / 2 GB per server on an 8-vCPU host), so both
sides are divided by the same reference server's figure: 1.00 = as fast / heavy as the reference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from mcpbench.results import model


@dataclass(frozen=True)
class Published:
    """One server of the study, as it reported it."""

    stack: str
    rps: float
    avg_ms: float
    p95_ms: float
    ram_mb: float
    cpu_pct: float


# Mean of 3 runs, 50 VUs, session mode; RPS = every HTTP request (the study counted warm-up and ramp too),
# avg/p95 = HTTP request duration, RAM and CPU as the study reported them (docs/workload.md §5).
PUBLISHED: dict[str, Published] = {name: Published(*row) for name, row in {
    "rust": ("rmcp 0.17 + Tokio + deadpool-redis", 4845, 5.09, 10.99, 10.9, 117.9),
    "quarkus": ("Quarkus 3.31 MCP server (Vert.x)", 4739, 4.04, 8.13, 194.5, 161.7),
    "go": ("Go MCP SDK + tuned http.Transport", 3616, 6.87, 17.62, 23.9, 209.9),
    "java": ("Spring Boot 4 MVC + Spring AI", 3540, 6.13, 13.71, 368.1, 206.0),
    "java-vt": ("Spring Boot 4 + virtual threads", 3482, 9.03, 18.43, 349.7, 184.9),
    "micronaut": ("Micronaut 4.10 MCP", 3382, 9.75, 17.00, 216.3, 190.5),
    "java-webflux": ("Spring Boot 4 WebFlux", 3032, 8.89, 27.48, 484.6, 207.2),
    "bun": ("same JS as nodejs, Bun 1", 876, 48.46, 98.50, 540.8, 205.8),
    "nodejs": ("TS SDK + Express, 4 cluster workers", 423, 123.50, 200.07, 389.2, 202.2),
    "python": ("FastMCP + uvicorn, 4 workers, uvloop", 259, 251.62, 342.41, 258.6, 206.6),
}.items()}
PUBLISHED_VUS = 50
PUBLISHED_PROFILE = "2 vCPU / 2 GB per server, 8-vCPU host, mean of 3 runs"

# Our server names that stand for a published one under another name (a manifest may also say "v2_name").
ALIASES = {"java-spring": "java", "spring": "java", "spring-mvc": "java", "java-spring-vt": "java-vt",
           "spring-vt": "java-vt", "java-spring-webflux": "java-webflux", "spring-webflux": "java-webflux",
           "webflux": "java-webflux", "node": "nodejs", "typescript": "nodejs", "ts": "nodejs",
           "go-sdk": "go", "fastmcp": "python"}

PUBLISHED_CPUS_PER_SERVER = 2.0
PUBLISHED_HOST_VCPUS = 8

# (label, our row's field, the study's field, higher is better). RPS = (initialize + tools/call + tools/list) / s, the
# study's `mcp_requests` counter: over the measured window, and over the whole k6 run as the study counted it.
# avg / p95 = tools/call request durations, every call sent (the study averaged per-tool percentiles; we pool
# the samples and never average percentiles).
METRICS = (("RPS", "v2_rps", "rps", True), ("RPS whole run", "v2_rps_whole_run", "rps", True),
           ("avg ms", "v2_call_avg_ms", "avg_ms", False), ("p95 ms", "v2_call_p95_ms", "p95_ms", False),
           ("RAM MB", "mem_avg_mb", "ram_mb", False), ("CPU %", "cpu_avg_pct", "cpu_pct", False))


def profile_differences(dirs: Sequence) -> list[str]:
    """Plain sentences for every way our server profile differs from the study's (2 CPUs per server on an
    8-vCPU host): run.json config.profile.cpus and environment.cores of each results directory."""
    out = []
    for d in dirs:
        cpus = d.config.profile.cpus if d.config.profile else None
        cores = d.environment.cores
        parts = []
        if cpus != PUBLISHED_CPUS_PER_SERVER:
            parts.append(f"{cpus if cpus is not None else '?'} CPU per server (study: {PUBLISHED_CPUS_PER_SERVER:g})")
        if cores != PUBLISHED_HOST_VCPUS:
            parts.append(f"a {cores if cores is not None else '?'}-core machine "
                         f"(study: {PUBLISHED_HOST_VCPUS}-vCPU host)")
        if parts:
            out.append(f"{d.run_id}: measured with " + " on ".join(parts) + " — our profile differs from the study's.")
    return out


def published_name(server: str, manifest: model.Server | None = None) -> str | None:
    # "v2_name" is a key of the manifest's own (server.json's open part), not a field of the format
    named = (manifest.model_extra or {}).get("v2_name") if manifest else None
    if named in PUBLISHED:
        return str(named)
    if server in PUBLISHED:
        return server
    return ALIASES.get(server)


def _ratio(value, ref):
    if value is None or ref in (None, 0):
        return None
    return value / ref


class Measured(Protocol):
    """What the comparison reads of one of our rows (rows.Row): the server, the study's figures (METRICS) and
    what says a figure is only a bound."""

    @property
    def server(self) -> str: ...
    @property
    def display_name(self) -> str | None: ...
    @property
    def v2_rps(self) -> float | None: ...
    @property
    def v2_rps_whole_run(self) -> float | None: ...
    @property
    def v2_call_avg_ms(self) -> float | None: ...
    @property
    def v2_call_p95_ms(self) -> float | None: ...
    @property
    def mem_avg_mb(self) -> float | None: ...
    @property
    def cpu_avg_pct(self) -> float | None: ...
    @property
    def flags(self) -> list[str]: ...
    @property
    def runs(self) -> int: ...
    @property
    def harness_bound(self) -> bool: ...
    @property
    def limited_by_text(self) -> str: ...


@dataclass(frozen=True)
class Metric:
    """One of the study's figures (METRICS) of one server: ours and the published one, each as a ratio to its
    side's reference server."""

    label: str
    ours: float | None
    published: float
    ours_ratio: float | None
    published_ratio: float | None
    higher_better: bool


@dataclass(frozen=True)
class SideBySide:
    """One server of the published study that we measured: its figures beside the study's."""

    name: str                      # its name in the study
    server: str                    # ours
    display_name: str
    stack: str                     # the study's words for it
    metrics: list[Metric]
    flags: list[str]
    runs: int
    harness_bound: bool
    limited_by_text: str


@dataclass(frozen=True)
class Comparison:
    """Our rows of one load beside the published table, as ratios to the same reference server."""

    reference: str | None          # our name of the reference server (None: none of ours is in the study)
    rows: list[SideBySide]
    note: str | None               # why the reference is another than asked
    missing: list[str]             # the study's servers not measured here
    reference_published: str | None = None


def comparison(rows: Sequence[Measured], manifests: Mapping[str, model.Server | None], reference: str) -> Comparison:
    """Our rows (one load) and the published table as ratios to `reference` (our name of the server).

    Falls back to the first published server (by published RPS) measured here when the reference is not
    in both; says so in `note`.
    """
    ours: dict[str, Measured] = {}
    for row in rows:
        name = published_name(row.server, manifests.get(row.server))
        if name is not None and name not in ours:
            ours[name] = row
    ref_name = published_name(reference, manifests.get(reference))
    note = None
    if ref_name is None or ref_name not in ours:
        candidates = [n for n in PUBLISHED if n in ours]
        if not candidates:
            return Comparison(None, [], "none of the measured servers is in the published study", sorted(PUBLISHED))
        note = (f"reference {reference!r} was not measured here or is not in the published study; "
                f"using {ours[candidates[0]].server!r} instead")
        ref_name = candidates[0]
    ref_ours, ref_pub = ours[ref_name], PUBLISHED[ref_name]
    out = []
    for name, pub in PUBLISHED.items():
        if name not in ours:
            continue
        row = ours[name]
        metrics = [Metric(label, getattr(row, our_key), getattr(pub, pub_key),
                          _ratio(getattr(row, our_key), getattr(ref_ours, our_key)),
                          _ratio(getattr(pub, pub_key), getattr(ref_pub, pub_key)), higher_better)
                   for label, our_key, pub_key, higher_better in METRICS]
        out.append(SideBySide(name, row.server, row.display_name or row.server, pub.stack, metrics,
                              list(row.flags or []), row.runs, bool(row.harness_bound), row.limited_by_text))
    return Comparison(ref_ours.server, out, note, [n for n in PUBLISHED if n not in ours], ref_name)
