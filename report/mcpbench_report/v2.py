"""The published "MCP Server Performance Benchmark v2" figures, and ours side by side as ratios.

Absolute numbers differ by machine (the study: 2 vCPU / 2 GB per server on an 8-vCPU host), so both
sides are divided by the same reference server's figure: 1.00 = as fast / heavy as the reference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mcpbench.results import model

# Mean of 3 runs, 50 VUs, session mode; RPS = every HTTP request (the study counted warm-up and ramp too),
# avg/p95 = HTTP request duration, RAM and CPU as the study reported them (docs/workload.md §5).
PUBLISHED_COLUMNS = ("stack", "rps", "avg_ms", "p95_ms", "ram_mb", "cpu_pct")
PUBLISHED: dict[str, dict] = {name: dict(zip(PUBLISHED_COLUMNS, row, strict=True)) for name, row in {
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

# (label, our row key, published key, higher is better). RPS = (initialize + tools/call + tools/list) / s, the
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


def comparison(rows: Sequence[Mapping], manifests: Mapping[str, model.Server | None], reference: str) -> dict:
    """Our rows (one load) and the published table as ratios to `reference` (our name of the server).

    Falls back to the first published server (by published RPS) measured here when the reference is not
    in both; says so in `note`.
    """
    ours = {}
    for row in rows:
        name = published_name(row["server"], manifests.get(row["server"]))
        if name is not None and name not in ours:
            ours[name] = row
    ref_name = published_name(reference, manifests.get(reference))
    note = None
    if ref_name not in ours:
        candidates = [n for n in PUBLISHED if n in ours]
        if not candidates:
            return {"reference": None, "rows": [], "note": "none of the measured servers is in the published study",
                    "missing": sorted(PUBLISHED)}
        note = (f"reference {reference!r} was not measured here or is not in the published study; "
                f"using {ours[candidates[0]]['server']!r} instead")
        ref_name = candidates[0]
    ref_ours, ref_pub = ours[ref_name], PUBLISHED[ref_name]
    out = []
    for name, pub in PUBLISHED.items():
        if name not in ours:
            continue
        row = ours[name]
        metrics = []
        for label, our_key, pub_key, higher_better in METRICS:
            metrics.append({
                "label": label, "ours": row.get(our_key), "published": pub[pub_key],
                "ours_ratio": _ratio(row.get(our_key), ref_ours.get(our_key)),
                "published_ratio": _ratio(pub[pub_key], ref_pub[pub_key]), "higher_better": higher_better,
            })
        out.append({"name": name, "server": row["server"], "display_name": row.get("display_name") or row["server"],
                    "stack": pub["stack"], "metrics": metrics, "flags": list(row.get("flags") or []),
                    "runs": row.get("runs"), "harness_bound": bool(row.get("harness_bound")),
                    "limited_by_text": row.get("limited_by_text")})
    return {"reference": ref_ours["server"], "reference_published": ref_name, "rows": out, "note": note,
            "missing": [n for n in PUBLISHED if n not in ours]}
