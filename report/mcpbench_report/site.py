"""What the report's pages are built with (build.py builds them, pages/*.py are they): the Site — the
consolidated results, the options, the figures several pages show, the helpers that draw a chart and render a
template (jinja2, autoescaped) — the downloads and the copy of the raw files, and the formatting filters.

Layout (every link relative, so it opens from disk and from any sub-path):

    index.html  decision.html  methodology.html  v2.html  [capacity|soak|history|decomposition].html
    servers/<name>.html  charts/*.svg  data/results.csv  data/results.json  data/decision.json  raw/<run-id>/...
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import quote

import numpy as np
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from mcpbench.results.layout import SITE_MARKER
from mcpbench.results.model import SCHEMA, document

from . import capacity, charts, decision, decomposition, soak, stats
from . import history as history_mod
from .consolidate import BOUND, NOT_ASSESSED, RANKED, UNPUBLISHABLE, Consolidated
from .load import LoadKey, ResultsDir
from .rows import Json

HERE = Path(__file__).resolve().parent
CSV_COLUMNS = (
    "config", "mode", "kind", "vus", "rate", "rate_fraction", "section", "ranked", "rank", "tier", "rank_note",
    "server", "display_name", "language", "sdk", "sdk_version", "runs", "tool_calls_per_s", "tool_calls_per_s_sd",
    "cv", "cv_round_ratio", "ci_low", "ci_high", "ci_method", "harness_bound", "publishable",
    "v2_rps", "v2_rps_whole_run", "latency_all_avg_ms", "latency_all_p50_ms", "latency_all_p95_ms",
    "latency_all_p99_ms", "latency_all_max_ms", "latency_all_count", "latency_avg_ms", "latency_p50_ms",
    "latency_p90_ms", "latency_p95_ms", "latency_p99_ms", "latency_p999_ms", "latency_max_ms", "latency_count",
    "http_avg_ms", "http_p95_ms", "tool_calls", "errors", "error_rate", "cpu_avg_pct", "cpu_peak_pct",
    "mem_avg_mb", "mem_peak_mb", "calls_per_core", "calls_per_gb", "cpu_ms_per_call", "cpu_rank",
    "mem_peak_mb_mean", "mem_rank", "p50_rank", "p99_rank", "dropped_iterations", "flags", "vs_leader", "vs_next",
    "order_held", "missing_text", "unpublishable_reasons", "run_ids",
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


@dataclass(frozen=True)
class Rule:
    """One rule of the report or of the orchestrator's verdicts it relies on: its constant, the constant's value
    (None for a rule in words) and the rule."""

    name: str
    value: float | str | None
    rule: str

    def to_json(self) -> dict[str, Json]:
        return {"name": self.name, "value": self.value, "rule": self.rule}


def rules() -> list[Rule]:
    """Every rule, from the named constants (rendered on the methodology page and written into
    data/results.json)."""
    from mcpbench.analysis import equal_load, sequential, warmup
    from mcpbench.analysis import summary as analysis
    from mcpbench.loads import timing

    quick, full = timing.QUICK_TIMING, timing.FULL_TIMING
    table = (  # (constant, its value or None for a rule in words, the rule)
        ("MIN_ROUNDS", stats.MIN_ROUNDS,
         f"below {stats.MIN_ROUNDS} runs per server nothing is claimed: no tier, no rank number, "
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
    return [Rule(name, value, rule) for name, value, rule in table]


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


def _flatten(data: Mapping[str, Json], prefix: str = "") -> dict[str, Json]:
    """A document's leaves by their dotted keys (an empty mapping is a leaf)."""
    out: dict[str, Json] = {}
    for key, value in data.items():
        if isinstance(value, Mapping) and value:
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


@dataclass(frozen=True)
class Setting:
    """One key of run.json's config or environment across results directories, as the methodology page lists
    it: one value where all agree, else each value with the results it comes from."""

    key: str
    value: str
    differs: bool


def merged_settings(dirs: list[ResultsDir], section: str) -> list[Setting]:
    """Every key of run.json's `section` (config or environment) across results directories."""
    flats = [(d.run_id, _flatten(document(getattr(d, section)))) for d in dirs]
    keys = list(dict.fromkeys(k for _, flat in flats for k in flat))
    rows = []
    for key in keys:
        values = [(run_id, flat.get(key)) for run_id, flat in flats]
        distinct = {json.dumps(v, sort_keys=True, default=str) for _, v in values}
        if len(distinct) == 1:
            rows.append(Setting(key, _show(values[0][1]), False))
        else:
            rows.append(Setting(key, "; ".join(f"{_show(v)} ({run_id})" for run_id, v in values), True))
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


@dataclass(frozen=True)
class RawFile:
    """A link to one file of the results, copied under raw/."""

    name: str
    href: str
    bytes: int


class Site:
    """What every page builds with: the consolidated results, the options, the shared figures (the decision,
    the soak rows, the overheads — several pages show them) and the helpers that draw a chart and render a
    template. The pages themselves are pages/*.py."""

    def __init__(self, cons: Consolidated, root: Path, options: SimpleNamespace, slo_p99_ms: float,
                 history: history_mod.History | None = None):
        self.cons, self.root, self.options, self.slo = cons, root, options, slo_p99_ms
        self.history = history
        self.env = _environment()
        self.colour = charts.colours(list(cons.servers))
        self.chart_files: list[str] = []
        self.index_charts: list[str] = []     # set by the index page: what the first screen loads
        self.manifests = {name: view.manifest for name, view in cons.servers.items()}
        self.env.globals["sdk_kind"] = lambda server: decision.sdk_kind(self.manifests.get(server))
        self.env.globals["sdk_kinds"] = sorted({decision.sdk_kind(m) for m in self.manifests.values()})

    # -- figures several pages show ---------------------------------------------------------------------------
    @cached_property
    def soaks(self) -> list[soak.SoakRow]:
        return soak.soak_rows(self.cons)

    @cached_property
    def decomposition(self) -> list[decomposition.DecompositionRow]:
        return decomposition.decomposition(self.cons)

    @cached_property
    def capacity_rows(self) -> dict[str, list[capacity.CapacityRow]]:
        return capacity.capacity_rows(self.cons)

    @cached_property
    def decision(self) -> decision.Decision:
        o = self.options
        return decision.decide(
            self.cons, budget_mb=o.budget_mb,
            budget_p99_ms=o.budget_p99_ms if o.budget_p99_ms is not None else self.slo,
            price_vcpu_hour=o.price_vcpu_hour, price_gib_hour=o.price_gib_hour,
            targets=tuple(o.target_rate), soaks=self.soaks, capacity=self.capacity_rows)

    @cached_property
    def summary(self) -> list[str]:
        """The decision page's answers in sentences, for the first screen; none where there is no decision page (a
        run of servers given on the command line alone, or verify's results with nothing measured)."""
        return decision.summary(self.decision, self.cons) if self.cons.of_lineup and self.cons.groups else []

    @property
    def ordered_keys(self) -> list[LoadKey]:
        """The headline load first, then the others."""
        return [self.cons.headline] + [k for k in self.cons.keys if k != self.cons.headline]

    # -- helpers ---------------------------------------------------------------------------------------------
    def chart(self, name: str, draw, *args, **kwargs) -> str:
        rel = f"charts/{name}.svg"
        draw(*args, path=self.root / rel, **kwargs)
        self.chart_files.append(rel)
        return rel

    def add_templates(self, directories: list[Path]) -> None:
        """Look for templates in these directories too, after the package's (pages registered from outside)."""
        loader = self.env.loader
        assert isinstance(loader, FileSystemLoader)
        loader.searchpath.extend(str(d) for d in directories if str(d) not in loader.searchpath)

    def render(self, template: str, rel: str, **context) -> None:
        depth = rel.count("/")
        page = self.env.get_template(template).render(
            root="../" * depth, page=rel, cons=self.cons, slo=self.slo, stats=stats,
            headline=self.cons.headline if self.cons.groups else None,
            ordered_keys=self.ordered_keys if self.cons.groups else [], **context)
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page)

    def raw_links(self, files: list[Path], run_id: str, *inner: str) -> list[RawFile]:
        return [RawFile(f.name, href("raw", run_id, *inner, f.name), f.stat().st_size) for f in files]

    # -- the files beside the pages --------------------------------------------------------------------------
    def copy_raw(self) -> None:
        def ignore(directory: str, names: list[str]) -> set[str]:
            # temporary files, dot files, and a report site made inside the results directory (bench.sh writes
            # results/<run>/site): a site is no raw file, and copying it would nest every rebuild in the next
            skipped = set(shutil.ignore_patterns("*.tmp", ".*")(directory, names))
            return skipped | {n for n in names if (Path(directory) / n / SITE_MARKER).is_file()}

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
            flat = row.to_json()
            flat["flags"] = ";".join(row.flags)
            flat["run_ids"] = ";".join(row.run_ids)
            flat["unpublishable_reasons"] = ";".join(row.unpublishable_reasons)
            flat["order_held"] = row.throughput.order_held.text if row.throughput.order_held else None
            writer.writerow({k: ("" if flat.get(k) is None else flat.get(k)) for k in CSV_COLUMNS})
        (data / "results.csv").write_text(buf.getvalue())
        doc = {
            "schema": SCHEMA, "generator": "mcpbench report",
            "results": [{"run_id": d.run_id, "status": d.status, "schema_read": d.schema_read,
                         **{k: v for k, v in document(d.run).items()
                            if k in ("config", "environment", "calibration", "equal_load", "rounds_auto", "rounds")}}
                        for d in self.cons.dirs],
            "differences": self.cons.differences, "slo_p99_ms": self.slo,
            "rules": [rule.to_json() for rule in rules()],
            "rows": [row.to_json() for row in rows],
            "not_measured": [f.__dict__ for f in self.cons.failures],
        }
        (data / "results.json").write_text(json.dumps(doc, indent=1, default=json_default) + "\n")



def json_default(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, LoadKey):
        return value.label
    raise TypeError(f"not JSON serialisable: {type(value)}")
