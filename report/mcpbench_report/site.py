"""Render the static site: pages (jinja2, autoescaped), charts, downloads and a copy of the raw files.

Layout (every link relative, so it opens from disk and from any sub-path):

    index.html  methodology.html  v2.html  servers/<name>.html
    charts/*.svg  data/results.csv  data/results.json  raw/<run-id>/...
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import numpy as np
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup
from mcpbench.analysis import summary as analysis
from mcpbench import loads as load_kinds
from mcpbench.analysis.capacity import parse_slo
from mcpbench.loads import OpenLoad
from mcpbench.results.model import SCHEMA, document
from mcpbench.analysis.stats import latency_stats

from . import capacity, charts, decision, decomposition, history as history_mod, soak, stats, v2
from .consolidate import (BOUND, CONFIG_FINGERPRINT, ENVIRONMENT_FINGERPRINT, NOT_ASSESSED, RANKED, UNPUBLISHABLE,
                          Consolidated, Group)
from .load import LoadKey, ResultsError

HERE = Path(__file__).resolve().parent
MARKER = ".mcpbench-report"
CSV_COLUMNS = (
    "config", "mode", "kind", "vus", "rate", "rate_fraction", "section", "ranked", "rank", "tier", "rank_note",
    "server", "display_name", "language", "sdk", "sdk_version", "runs", "tool_calls_per_s", "tool_calls_per_s_sd",
    "cv", "cv_round_ratio", "ci_low", "ci_high", "ci_method", "harness_bound", "publishable",
    "v2_rps", "v2_rps_whole_run", "latency_all_avg_ms", "latency_all_p50_ms", "latency_all_p95_ms",
    "latency_all_p99_ms", "latency_all_max_ms", "latency_all_count", "latency_avg_ms", "latency_p50_ms",
    "latency_p90_ms", "latency_p95_ms", "latency_p99_ms", "latency_p999_ms", "latency_max_ms", "latency_count",
    "http_avg_ms", "http_p95_ms", "tool_calls", "errors", "error_rate", "cpu_avg_pct", "cpu_peak_pct",
    "mem_avg_mb", "mem_peak_mb", "calls_per_core", "calls_per_gb", "cpu_ms_per_call", "cpu_rank",
    "mem_peak_mb_mean", "mem_rank", "p50_rank", "p99_rank", "dropped_iterations", "flags", "vs_leader", "vs_next", "order_held",
    "missing_text", "unpublishable_reasons", "run_ids",
)
FLAG_HELP = {
    "bound:loadgen": "the load generator saturated its CPU budget: the server may be faster than shown",
    "bound:redis": "Redis saturated its CPU budget",
    "bound:api": "the product API service saturated its CPU budget",
    "bound:harness": "a component other than the server saturated its CPU budget",
    "bound:load-model": "closed model: throughput reached the share of what the VUs and think time allow even "
                        "against a no-I/O endpoint: the load model, not the server, set it",
    "bound:harness-capacity": "open model: the offered rate reached the share of the harness's own open-model "
                              "capacity at which the harness, not the server, is measured",
    "limit-unknown": "no calibrated limit to judge this load against (calibration skipped or failed): whether the "
                     "load model or the harness limited it is not known",
    "errors": "some tool calls failed",
    "cgroup-not-applied": "CPU and memory limits could not be applied: the server was not confined",
    "dropped-iterations": "the open model could not keep the arrival rate",
    "noisy-host": "programs other than ours used a share of a core during the window",
    "unstable-host": "the host's fixed-work probe moved between before and after the load, or a CPU had steal",
    "littles-law": "the closed model's VUs, rate and iteration time disagree (Little's law)",
    "not-steady": "the warm-up reached its cap before throughput was steady",
    "clock-offset": "the load nodes' clocks disagreed by more than 100 ms: their samples' alignment is not trusted",
}
# The same flags in a word or two, for an 80-column terminal (console.py); every FLAG_HELP flag has one.
FLAG_SHORT = {
    "bound:loadgen": "loadgen CPU limit", "bound:redis": "Redis CPU limit", "bound:api": "API CPU limit",
    "bound:harness": "harness CPU limit", "bound:load-model": "load-model limit",
    "bound:harness-capacity": "harness capacity", "limit-unknown": "limit unknown", "errors": "errors",
    "cgroup-not-applied": "no cgroup limits", "dropped-iterations": "dropped calls", "noisy-host": "noisy host",
    "unstable-host": "unstable host", "littles-law": "Little's law", "not-steady": "not steady",
    "clock-offset": "clock offset",
}


def rules() -> list[dict]:
    """Every rule of the report and of the orchestrator's verdicts it relies on, from the named constants
    (rendered on the methodology page and written into data/results.json)."""
    from mcpbench.analysis import equal_load, sequential
    from mcpbench.analysis import summary as analysis
    from mcpbench.loads import timing
    from mcpbench.analysis import warmup

    quick, full = timing.QUICK_TIMING, timing.FULL_TIMING
    table = (  # (constant, its value or None for a rule in words, the rule)
        ("MIN_RUNS_FOR_TEST", stats.MIN_RUNS_FOR_TEST,
         f"below {stats.MIN_RUNS_FOR_TEST} runs per server nothing is claimed: no tier, no rank number, "
         "no regression (\"1 run — not tested\")"),
        ("ALPHA", stats.ALPHA, "significance level, after correction"),
        ("TIER_RULE", None, stats.TIER_RULE),
        ("MODERATED_TEST", None, stats.MODERATED_TEST),
        ("GEO_INTERVAL", None, stats.GEO_INTERVAL),
        ("HOLM", None, stats.HOLM),
        ("LEADER_RULE", None, stats.LEADER_RULE),
        ("MIN_EFFECT", stats.MIN_EFFECT,
         "a difference (ranks, leaders) or a change (compare, history) counts only when corrected-significant and "
         "at least this large as a ratio (compare: --min-effect)"),
        ("CHANGE_TEST / MIN_CENTRE_SERVERS", stats.MIN_CENTRE_SERVERS, "compare and history: " + stats.CHANGE_TEST),
        ("LIMIT_FRACTION", analysis.LIMIT_FRACTION,
         "a closed-model throughput at this share of the closed model's own limit at its VUs (calibrated against "
         "a no-I/O endpoint) is bound:load-model; an open-model offered rate at this share of the harness's "
         "open-model capacity (an arrival-rate ladder on that endpoint) is bound:harness-capacity; a load with no "
         "calibrated limit is limit-unknown and never publishable"),
        ("HARNESS_BOUND_PREFIX", analysis.HARNESS_BOUND_PREFIX,
         "a row with any flag starting so is shown as “≥ X calls/s — limited by …” (the limit named), never ranked"),
        ("HOST_PROBE_MAX_CHANGE", analysis.HOST_PROBE_MAX_CHANGE,
         "unstable-host when the fixed-work probe of a CPU changes more than this between before and after"),
        ("HOST_MAX_STEAL_PCT", analysis.HOST_MAX_STEAL_PCT,
         "unstable-host when a CPU's mean steal over the window reaches this many %"),
        ("FOREIGN_CPU_LIMIT_PCT", analysis.FOREIGN_CPU_LIMIT_PCT,
         "noisy-host when foreign programs use at least this % of one core on average in the window"),
        ("LITTLES_LAW_MAX_GAP", analysis.LITTLES_LAW_MAX_GAP,
         "littles-law when VUs and rate × iteration time differ by more than this share"),
        ("STEADY_SPAN_S / STEADY_TOLERANCE / STEADY_LATENCY_TOLERANCE",
         f"{warmup.STEADY_SPAN_S} s / {warmup.STEADY_TOLERANCE} / {warmup.STEADY_LATENCY_TOLERANCE}",
         f"warm-up ends when the last {warmup.STEADY_SPAN_S} s (quick: {quick.steady_span_s:g} s) are within "
         f"{warmup.STEADY_TOLERANCE:.0%} of the span before in throughput and within "
         f"{warmup.STEADY_LATENCY_TOLERANCE:.0%} in the median latency of their calls (open-model throughput is "
         f"steady by construction); bounds quick {quick.warmup_s:g}–{quick.warmup_cap_s:g} s, full "
         f"{full.warmup_s:g}–{full.warmup_cap_s:g} s (at the cap: not-steady)"),
        ("publishable", None,
         "the headline ranking uses rows whose every measurement is publishable (status ok, no failed "
         "self-check, no flag); schema-1 results were never assessed and are ranked apart, so labelled"),
        ("equal load: DEFAULT_FRACTION / HARNESS_SHARE", f"{equal_load.DEFAULT_FRACTION} / {equal_load.HARNESS_SHARE}",
         "run --equal-load F offers every server the same open-model rate, set after round 1: F (suggested "
         f"{equal_load.DEFAULT_FRACTION}) × the slowest server's round-1 closed rate, capped at "
         f"{equal_load.HARNESS_SHARE:.0%} of the harness's open-model capacity; ranked on server CPU ms per call, "
         "with all-calls p50, p99 and peak memory each ranked beside (paired per round, Holm per metric); the index "
         "page leads with it when any server's throughput met a limit of the harness"),
        ("rounds auto: MIN_ROUNDS / MARGIN / DEFAULT_MAX_ROUNDS",
         f"{sequential.MIN_ROUNDS} / {sequential.MARGIN} / {sequential.DEFAULT_MAX_ROUNDS}",
         f"run --rounds auto: {sequential.PROCEDURE}; it stops when every adjacent pair of the headline ranking is "
         "ordered or equivalent, or at --max-rounds or --time-budget (run.json rounds_auto: every look, why it "
         "stopped, rounds per server). The report ranks such a run at the per-look level it spent, not at "
         f"{stats.ALPHA}: a fixed-n test re-run after every round would order two equal servers far more often "
         "than its level (scripts/stopping_simulation.py measures both on recorded rounds)"),
        ("CLAIM_RULE", None, "decision page: " + decision.CLAIM_RULE),
        ("SLO_MAX_ERROR_RATE", stats.SLO_MAX_ERROR_RATE,
         "SLO peak: highest load whose all-calls p99 meets the SLO with at most this share of failed calls"),
    )
    return [{"name": name, "value": value, "rule": rule} for name, value, rule in table]


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "x"


def href(*parts: str) -> str:
    return "/".join(quote(p) for p in parts)


def num(value, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return "—"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return f"{value:,.{digits}f}"


def pct(value, digits: int = 2) -> str:
    return "—" if value is None else f"{value * 100:.{digits}f} %"


def short(value) -> str:
    """A setting as it was given: 5, 0.25, 60 (not 5.0)."""
    return "—" if value is None else f"{value:g}"


def sortval(value) -> str:
    """data-v attribute of a sortable cell: the raw number, or '' for a missing one (sorted last)."""
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return ""
    return repr(float(value)) if isinstance(value, (int, float)) else str(value)


def _flatten(data: dict, prefix: str = "") -> dict:
    out: dict = {}
    for key, value in data.items():
        if isinstance(value, dict) and value:
            out.update(_flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def _show(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, (list, tuple)):
        return ", ".join(_show(v) for v in value)
    if isinstance(value, dict):
        return "{}" if not value else json.dumps(value)
    return str(value)


def merged_settings(dirs: list, section: str) -> list[dict]:
    """Every key of run.json's config or environment across results directories: one value where all agree,
    else each value with the results it comes from (and `differs` set)."""
    flats = [(d.run_id, _flatten(document(getattr(d, section)))) for d in dirs]
    keys = list(dict.fromkeys(k for _, flat in flats for k in flat))
    rows = []
    for key in keys:
        values = [(run_id, flat.get(key)) for run_id, flat in flats]
        distinct = {json.dumps(v, sort_keys=True, default=str) for _, v in values}
        if len(distinct) == 1:
            rows.append({"key": key, "value": _show(values[0][1]), "differs": False})
        else:
            rows.append({"key": key, "value": "; ".join(f"{_show(v)} ({run_id})" for run_id, v in values),
                         "differs": True})
    return rows


def _environment() -> Environment:
    # Files next to this module (package data), found by path rather than through the package object, which
    # under pytest can be the namespace directory tests/mcpbench_report instead of this package.
    # StrictUndefined: a field the results model does not have is an error, never an empty cell.
    env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters.update(num=num, pct=pct, short=short, sortval=sortval, slug=slug, doc=document)
    env.globals.update(href=href, flag_help=FLAG_HELP, stats=stats,
                       sections=dict(
        bound=BOUND, ranked=RANKED, not_assessed=NOT_ASSESSED, unpublishable=UNPUBLISHABLE))
    static = HERE / "static"
    env.globals["inline_css"] = Markup((static / "style.css").read_text())
    env.globals["inline_js"] = Markup((static / "report.js").read_text())
    return env


@dataclass
class SiteStats:
    out: Path
    pages: int
    charts: int
    total_bytes: int
    pages_bytes: int       # html + charts + downloads (without raw/)
    index_bytes: int       # index.html and the charts it shows
    summary: tuple[str, ...] = ()   # the index's summary sentences (decision.summary)


def run_label(run, group: Group) -> str:
    """'r2', or 'r2 · 20261121-201500' when the group pools runs of several results directories."""
    if len({r.run_id for r in group.runs}) > 1:
        return f"r{run.measurement.run} · {run.run_id.rsplit('-', 1)[0] if run.run_id.count('-') >= 2 else run.run_id}"
    return f"r{run.measurement.run}"


def _group_rows(cons: Consolidated, server: str) -> list[tuple[LoadKey, dict]]:
    """(load, row) of one server, the headline load first."""
    out = []
    for key in sorted(cons.keys, key=lambda k: k != cons.headline):
        for row in cons.rows.get(key, []):
            if row["server"] == server:
                out.append((key, row))
    return out


@dataclass(frozen=True)
class DecisionSettings:
    """What the decision page is asked for: a memory budget, a latency budget (default: the SLO) and prices
    (None: the example prices, labelled as such)."""

    budget_mb: float = decision.DEFAULT_BUDGET_MB
    budget_p99_ms: float | None = None
    price_vcpu_hour: float | None = None
    price_gib_hour: float | None = None


class SiteBuilder:
    def __init__(self, cons: Consolidated, root: Path, reference: str, slo_p99_ms: float,
                 target_rates: tuple[float, ...] = capacity.DEFAULT_TARGETS,
                 settings: DecisionSettings = DecisionSettings(), history: history_mod.History | None = None):
        self.cons, self.root, self.reference, self.slo = cons, root, reference, slo_p99_ms
        self.history = history
        self.target_rates = target_rates
        self.env = _environment()
        self.env.globals["has_capacity"] = any(r.capacity for v in cons.servers.values() for r in v.records)
        self.soaks = soak.soak_rows(cons)
        self.env.globals["has_soak"] = bool(self.soaks)
        self.decomposition = decomposition.decomposition(cons)
        self.env.globals["has_decomposition"] = bool(self.decomposition)
        self.env.globals["has_history"] = history is not None
        self.colour = charts.colours(list(cons.servers))
        self.chart_files: list[str] = []
        self.index_charts: list[str] = []
        self.manifests = {name: view.manifest for name, view in cons.servers.items()}
        self.decision = decision.decide(
            cons, budget_mb=settings.budget_mb,
            budget_p99_ms=settings.budget_p99_ms if settings.budget_p99_ms is not None else slo_p99_ms,
            price_vcpu_hour=settings.price_vcpu_hour, price_gib_hour=settings.price_gib_hour,
            targets=target_rates, soaks=self.soaks, capacity=capacity.capacity_rows(cons))
        self.summary = decision.summary(self.decision, cons)
        self.env.globals["sdk_kind"] = lambda server: decision.sdk_kind(self.manifests.get(server) or {})
        self.env.globals["sdk_kinds"] = sorted({decision.sdk_kind(m or {}) for m in self.manifests.values()})

    # -- helpers ---------------------------------------------------------------------------------
    def chart(self, name: str, draw, *args, **kwargs) -> str:
        rel = f"charts/{name}.svg"
        draw(*args, path=self.root / rel, **kwargs)
        self.chart_files.append(rel)
        return rel

    def render(self, template: str, rel: str, **context) -> None:
        depth = rel.count("/")
        page = self.env.get_template(template).render(root="../" * depth, page=rel, cons=self.cons,
                                                      slo=self.slo, stats=stats, **context)
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page)

    def raw_links(self, files: list[Path], run_id: str, *inner: str) -> list[dict]:
        return [{"name": f.name, "href": href("raw", run_id, *inner, f.name), "bytes": f.stat().st_size}
                for f in files]

    # -- parts -----------------------------------------------------------------------------------
    def copy_raw(self) -> None:
        def ignore(directory: str, names: list[str]) -> set[str]:
            # temporary files, dot files, and a report site made inside the results directory (bench.sh writes
            # results/<run>/site): a site is no raw file, and copying it would nest every rebuild in the next
            skipped = set(shutil.ignore_patterns("*.tmp", ".*")(directory, names))
            return skipped | {n for n in names if (Path(directory) / n / MARKER).is_file()}

        for d in self.cons.dirs:
            target = self.root / "raw" / d.run_id
            shutil.copytree(d.path, target, ignore=ignore,
                            copy_function=shutil.copyfile)  # new modes: results files may be 0600

    def downloads(self) -> None:
        rows = self.cons.all_rows()
        data = self.root / "data"
        data.mkdir(parents=True, exist_ok=True)
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for row in rows:
            flat = dict(row)
            flat["flags"] = ";".join(row["flags"])
            flat["run_ids"] = ";".join(row["run_ids"])
            flat["unpublishable_reasons"] = ";".join(row["unpublishable_reasons"])
            flat["order_held"] = (row["order_held"] or {}).get("text")
            writer.writerow({k: ("" if flat.get(k) is None else flat.get(k)) for k in CSV_COLUMNS})
        (data / "results.csv").write_text(buf.getvalue())
        doc = {
            "schema": SCHEMA, "generator": "mcpbench report",
            "results": [{"run_id": d.run_id, "status": d.status, "schema_read": d.schema_read,
                         **{k: v for k, v in document(d.run).items()
                            if k in ("config", "environment", "calibration", "equal_load", "rounds_auto", "rounds")}}
                        for d in self.cons.dirs],
            "differences": self.cons.differences, "slo_p99_ms": self.slo,
            "rules": rules(),
            "rows": rows,
            "not_measured": [f.__dict__ for f in self.cons.failures],
        }
        (data / "results.json").write_text(json.dumps(doc, indent=1, default=_json_default) + "\n")

    def headline_charts(self, key: LoadKey) -> dict[str, str]:
        rows = self.cons.rows[key]
        s = key.slug
        out = {
            "throughput": self.chart(f"{s}-throughput", charts.throughput_bars, rows,
                                     title=f"Throughput — {key.label}", colour_of=self.colour),
            "latency": self.chart(f"{s}-latency", charts.latency_percentiles, rows,
                                  title=f"Tool-call latency percentiles — {key.label}"),
            "per_tool": self.chart(f"{s}-per-tool", charts.per_tool_latency, rows,
                                   title=f"Latency per tool (p50 dark, p99 light) — {key.label}"),
            "efficiency": self.chart(f"{s}-efficiency", charts.efficiency_scatter, rows,
                                     title=f"Throughput against resources used — {key.label}",
                                     colour_of=self.colour),
        }
        series = {}
        colour = {}
        for row in rows:
            group = self.cons.groups[(row["server"], key)]
            series[row["display_name"]] = group.pooled_latency
            colour[row["display_name"]] = self.colour[row["server"]]
        if self.cons.leads_with_equal_load:
            equal = self.cons.equal_headline
            out["lead"] = self.chart(f"{equal.slug}-cpu", charts.cpu_bars, self.cons.equal_rows(equal),
                                     title=f"Server CPU per call at the equal load ({equal.mode})",
                                     colour_of=self.colour)
        else:
            out["lead"] = out["throughput"]
        out["distribution"] = self.chart(f"{s}-distribution", charts.latency_distribution, series,
                                         title=f"Latency distribution, all runs pooled — {key.label}",
                                         colour_of=colour)
        return out

    def sweep_section(self) -> list[dict]:
        sections = []
        for mode, kind_name in self.cons.sweeps():
            curves: dict[str, list[dict]] = {}
            for key in self.cons.keys:
                if (key.mode, key.kind_name) != (mode, kind_name):
                    continue
                for row in self.cons.rows[key]:
                    curves.setdefault(row["server"], []).append(row)
            curves = {s: rows for s, rows in curves.items() if len(rows) > 1}
            if not curves:
                continue
            kind = load_kinds.kind(kind_name)
            rel = self.chart(f"sweep-{slug(mode)}-{kind_name}", charts.concurrency, curves,
                             title=f"Throughput and p99 against {kind.words.sweep_what} — {mode}", kind=kind,
                             slo_p99_ms=self.slo, colour_of=self.colour)
            slo_rows = []
            for server, rows in sorted(curves.items()):
                levels = [{"load": r["load"], "p99": r["latency_all_p99_ms"], "error_rate": r["error_rate"],
                           "dropped_iterations": r["dropped_iterations"], "throughput": r["tool_calls_per_s"]}
                          for r in rows]
                best = stats.slo_peak(levels, self.slo)
                slo_rows.append({"server": server, "display_name": self.cons.servers[server].display_name,
                                 "best": best, "levels": sorted(levels, key=lambda lv: lv["load"])})
            slo_rows.sort(key=lambda r: -(r["best"]["throughput"] if r["best"] else -1))
            sections.append({"mode": mode, "kind": kind, "chart": rel, "slo_rows": slo_rows,
                             "unit": kind.words.level_unit})
        return sections

    def server_page(self, name: str) -> None:
        view = self.cons.servers[name]
        loads = []
        for key, row in _group_rows(self.cons, name):
            group: Group = self.cons.groups[(name, key)]
            ts_rel = self.chart(f"server-{slug(name)}-{key.slug}-timeseries", charts.timeseries,
                                [(run_label(r, group), r.timeseries) for r in group.runs],
                                group.runs[0].window, title=f"{view.display_name} — {key.label}")
            runs = []
            for r, ratio in zip(group.runs, row["per_run_round_ratio"]):
                s = r.summary
                lat = latency_stats(r.latency_all)
                server = s.resources.get("server")   # a component the sampler may have missed
                runs.append({
                    "run_id": r.run_id, "mid": r.mid, "run": r.measurement.run,
                    "round_order": s.round_order, "round_ratio": ratio,
                    "tool_calls_per_s": r.tool_calls_per_s, "v2_rps": r.v2_rps,
                    "p50": lat["p50"], "p95": lat["p95"], "p99": lat["p99"], "p99_ok": r.p99,
                    "error_rate": s.errors.rate, "cpu_avg": server.cpu_avg_pct if server else None,
                    "mem_avg": server.mem_avg_mb if server else None, "cpu_ms_per_call": r.cpu_ms_per_call,
                    "dropped": s.throughput.dropped_iterations,
                    "flags": s.flags, "publishable": r.publishable, "reasons": r.reasons,
                    "warmup": s.warmup, "host": s.host, "limit": s.limit,
                    "files": self.raw_links(r.measurement.files(), r.run_id, name, r.mid),
                })
            loads.append({"key": key, "row": row, "timeseries": ts_rel, "runs": runs})
        distribution = None
        if len(view.groups) > 1:
            series = {g.key.label: g.pooled_latency for g in view.groups}
            title = f"{view.display_name} — latency distribution per load (runs pooled)"
        elif view.groups:
            series = {run_label(r, view.groups[0]): r.latency for r in view.groups[0].runs}
            title = f"{view.display_name} — latency distribution per run ({view.groups[0].key.label})"
        if view.groups:
            distribution = self.chart(f"server-{slug(name)}-distribution", charts.latency_distribution, series,
                                      title=title)
        per_tool = None
        if view.groups:
            rows = [dict(row, display_name=key.label, rank="") for key, row in _group_rows(self.cons, name)]
            per_tool = self.chart(f"server-{slug(name)}-per-tool", charts.per_tool_latency, rows,
                                  title=f"{view.display_name} — latency per tool (p50 dark, p99 light)")
        sweeps = []
        for mode, kind_name in self.cons.sweeps():
            rows = [row for key, row in _group_rows(self.cons, name) if (key.mode, key.kind_name) == (mode, kind_name)]
            if len(rows) > 1:
                sweeps.append(self.chart(f"server-{slug(name)}-sweep-{slug(mode)}-{kind_name}", charts.concurrency,
                                         {name: rows}, title=f"{view.display_name} — {mode}",
                                         kind=load_kinds.kind(kind_name),
                                         slo_p99_ms=self.slo, colour_of=self.colour))
        records = []
        for record in view.records:
            records.append({"record": record, "files": self.raw_links(record.files(), record.results.run_id, name)})
        manifests = {n: v.manifest for n, v in self.cons.servers.items()}
        self.render("server.html", f"servers/{slug(name)}.html", view=view, loads=loads, records=records,
                    distribution=distribution, per_tool=per_tool, sweeps=sweeps, manifests=manifests,
                    what_ifs=decomposition.what_ifs_of(self.decomposition, name, manifests),
                    finding=decomposition.beyond, finding_margin=decomposition.FINDING_MARGIN,
                    failures=[f for f in self.cons.failures if f.server == name])

    def build(self) -> None:
        cons = self.cons
        self.copy_raw()
        self.downloads()
        headline = cons.headline
        index_charts = self.headline_charts(headline)
        sweeps = self.sweep_section()
        for name in cons.servers:
            self.server_page(name)
        v2_key = v2_load(cons)
        comparison = v2.comparison(cons.rows[v2_key], self.manifests, self.reference)
        ordered = [headline] + [k for k in cons.keys if k != headline]
        common = {"headline": headline, "ordered_keys": ordered}
        self.render("index.html", "index.html", charts=index_charts, sweeps=sweeps, summary=self.summary,
                    **common)
        self.render("decision.html", "decision.html", decision=self.decision, summary=self.summary,
                    claim_rule=decision.CLAIM_RULE, **common)
        (self.root / "data" / "decision.json").write_text(
            json.dumps(dataclasses.asdict(self.decision), indent=1, default=_json_default) + "\n")
        self.render("methodology.html", "methodology.html", config_fp=CONFIG_FINGERPRINT, rules=rules(),
                    limited_by=analysis.LIMITED_BY,
                    env_fp=ENVIRONMENT_FINGERPRINT, config_rows=merged_settings(cons.dirs, "config"),
                    env_rows=merged_settings(cons.dirs, "environment"), **common)
        self.render("v2.html", "v2.html", v2_key=v2_key, comparison=comparison, v2=v2,
                    profile_notes=v2.profile_differences(cons.dirs), **common)
        self.capacity_page(common)
        self.soak_page(common)
        self.decomposition_page(common)
        self.history_page(common)
        self.index_charts = list(dict.fromkeys(index_charts.values())) + [s["chart"] for s in sweeps]
        (self.root / ".nojekyll").write_text("")
        (self.root / MARKER).write_text("generated by mcpbench report; the whole directory is replaced on rebuild\n")


    def capacity_page(self, common: dict) -> None:
        """capacity.html, when the results hold `mcpbench capacity` ladders."""
        by_mode = capacity.capacity_rows(self.cons)
        if not by_mode:
            return
        plans = [document(d.config.capacity) for d in self.cons.dirs if d.config.capacity]
        slo = plans[0]["slo"] if plans else []
        p99_limit = next((c.limit for c in parse_slo(",".join(slo)) if c.metric == "p99"), self.slo) if slo else self.slo
        sections = []
        for mode, rows in by_mode.items():
            chart = self.chart(f"capacity-{slug(mode)}", charts.concurrency, {r.server: r.curve for r in rows},
                               title=f"Latency and throughput against the offered rate — {mode}", kind=OpenLoad,
                               slo_p99_ms=p99_limit, colour_of=self.colour)
            sections.append({"mode": mode, "rows": rows, "chart": chart,
                             "sizing": [{"row": r, "cells": [r.sizing(t) for t in self.target_rates]} for r in rows]})
        self.render("capacity.html", "capacity.html", sections=sections, slo_criteria=slo, plans=plans,
                    targets=self.target_rates, **common)

    def soak_page(self, common: dict) -> None:
        """soak.html, when the results hold `mcpbench soak` verdicts: per server the verdict of each
        criterion, the memory slope, and the series it was judged on."""
        if not self.soaks:
            return
        for row in self.soaks:
            row.chart = self.chart(f"soak-{slug(row.server)}", charts.soak_series, row.processes, row.document,
                                   title=f"{row.display_name}: soak at {row.document['rate']:g} calls/s")
        plans = [document(d.config.soak) for d in self.cons.dirs if d.config.soak]
        self.render("soak.html", "soak.html", rows=self.soaks, plans=plans, criteria=soak.CRITERIA_TEXT, **common)

    def history_page(self, common: dict) -> None:
        """history.html, when the report was asked for the history of several results directories."""
        if self.history is None:
            return
        figure = self.history.figures[0]
        chart = self.chart("history", charts.history_small_multiples, self.history.servers, figure.field, figure.label,
                           title=f"History — {self.history.key.label}", colour_of=self.colour)
        self.render("history.html", "history.html", history=self.history, chart=chart, figures=self.history.figures,
                    **common)

    def decomposition_page(self, common: dict) -> None:
        """decomposition.html, when some overhead could be paired (baseline, session modes, stdio)."""
        if not self.decomposition:
            return
        chart = self.chart("decomposition", charts.ratio_intervals, self.decomposition, decomposition.COLUMNS,
                           title="Overheads per server: ratio and 95 % interval (1 = no overhead)")
        references = [v.display_name for v in self.cons.servers.values()
                      if v.manifest.get("sdk") == decomposition.NO_SDK]
        self.render("decomposition.html", "decomposition.html", rows=self.decomposition, columns=decomposition.COLUMNS,
                    references=references, chart=chart, min_rounds=decomposition.MIN_ROUNDS, **common)


def v2_load(cons: Consolidated) -> LoadKey:
    """The load to set beside the published figures: closed model, the most servers that the study also
    measured, then the closest to its 50 VUs, then session mode."""
    closed = [k for k in cons.keys if k.kind.v2_comparable] or cons.keys

    def score(key: LoadKey):
        known = sum(1 for r in cons.rows[key] if v2.published_name(r["server"], cons.servers[r["server"]].manifest))
        return (known, -abs(key.load - v2.PUBLISHED_VUS), key.mode == "session")

    return max(closed, key=score)


def _json_default(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, LoadKey):
        return value.label
    raise TypeError(f"not JSON serialisable: {type(value)}")


def _replace_dir(tmp: Path, out: Path) -> None:
    if out.exists():
        if not out.is_dir():
            raise ResultsError(f"{out} exists and is not a directory")
        if (out / MARKER).is_file():
            shutil.rmtree(out)
        elif any(out.iterdir()):
            raise ResultsError(f"{out} exists, is not empty and was not made by mcpbench report; "
                               "refusing to overwrite it (choose another --out or remove it)")
        else:
            out.rmdir()
    os.replace(tmp, out)


def build_site(cons: Consolidated, out: Path, reference: str = "rust", slo_p99_ms: float = 100.0,
               target_rates: tuple[float, ...] = capacity.DEFAULT_TARGETS,
               settings: DecisionSettings = DecisionSettings(),
               history: history_mod.History | None = None) -> SiteStats:
    """Write the site to `out` (built aside, then swapped in: a failed build leaves the old site intact)."""
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        builder = SiteBuilder(cons, tmp, reference, slo_p99_ms, target_rates, settings, history)
        builder.build()
        os.chmod(tmp, 0o755)
        _replace_dir(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    files = [p for p in out.rglob("*") if p.is_file()]
    raw = out / "raw"
    pages = [p for p in files if raw not in p.parents]
    index_bytes = (out / "index.html").stat().st_size + sum((out / c).stat().st_size for c in builder.index_charts)
    return SiteStats(out=out, pages=sum(1 for p in files if p.suffix == ".html"), charts=len(builder.chart_files),
                     total_bytes=sum(p.stat().st_size for p in files),
                     pages_bytes=sum(p.stat().st_size for p in pages), index_bytes=index_bytes,
                     summary=tuple(builder.summary))
