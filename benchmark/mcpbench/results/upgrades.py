"""Older schemas read as the current one (asv's "api_version + update"): each step raises a file by one schema.

The steps change structure only. Two figures of an upgraded summary are the analysis's to recompute (its
efficiency, absent before schema 2, and whether it is publishable, judged again from schema 3's flags): the
steps mark them (`efficiency` None, `publishable` kept), and analysis.summary.upgrade_summary finishes them, so
the results package imports nothing of the analysis.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from mcpbench.results.model import (
    NOT_ASSESSED,
    SCHEMA,
    SCHEMAS_READ,
    Context,
    DimensionDecision,
    ResultsError,
    Run,
    dimension_headings,
    parsed,
    plain_section,
    validated,
)


def _upgrade_run_1(run: dict) -> dict:
    """schema 1 -> 2: no calibration, no round orders recorded; config keys of schema 2 where derivable."""
    run = dict(run, schema=2)
    run.setdefault("calibration", None)
    run.setdefault("rounds", None)
    run.setdefault("error", None)
    config = dict(run.get("config") or {})
    config.setdefault("calibrate", False)
    config.setdefault("warmup_cap_s", None)
    config.setdefault("warmup_adaptive", False)
    run["config"] = config
    return run


def _upgrade_summary_1(summary: dict, run: dict) -> dict:
    """schema 1 -> 2. Old `v2_rps` counted every HTTP request: it becomes `http_rps`, and v2_rps (a new
    definition) is None: the report recounts it from the samples. Fields never recorded are None;
    `publishable` is False when the old file already shows a reason (status, a flag), else None (not
    assessed) with NOT_ASSESSED as the reason."""
    s = dict(summary, schema=2)
    thr = dict(s.get("throughput") or {})
    if "http_rps" not in thr:
        thr["http_rps"] = thr.get("v2_rps")
    for k in ("v2_rps", "v2_requests", "v2_rps_whole_run", "v2_requests_whole_run", "k6_run_s"):
        thr[k] = None
    s["throughput"] = thr
    lat = dict(s.get("latency_ms") or {})
    lat.setdefault("tool_call_all", None)
    lat.setdefault("v2_tools_call", None)
    s["latency_ms"] = lat
    s["errors"] = {"failed_tool_calls": None, **(s.get("errors") or {})}
    s.setdefault("round_order", None)
    s.setdefault("rate_fraction", None)
    warmup_s = (run.get("config") or {}).get("warmup_s")
    s.setdefault("warmup", {"used_s": warmup_s, "min_s": warmup_s, "cap_s": warmup_s, "steady": None})
    s.setdefault("efficiency", None)  # computed by analysis.summary.upgrade_summary (the one definition)
    s.setdefault("host", None)
    s.setdefault("ceiling", {"tool_calls_per_s": None, "fraction": None})
    s.setdefault("checks", None)
    reasons = []
    if s.get("status", "ok") != "ok":
        reasons.append(f"status {s.get('status')}" + (f" ({s.get('phase')})" if s.get("phase") else ""))
    reasons += [f"flag: {f}" for f in s.get("flags") or []]
    s["publishable"] = False if reasons else None
    s["unpublishable_reasons"] = reasons + [NOT_ASSESSED]
    return s


# Schema 2's names for what schema 3 calls the load generator, and its one "ceiling" flag.
OLD_COMPONENTS = {"k6": "loadgen"}
OLD_FLAGS = {"bound:k6": "bound:loadgen"}
CEILING_FLAG_2 = "bound:ceiling"


def _upgrade_run_2(run: dict) -> dict:
    """schema 2 -> 3: the calibration's k6 CPU is the load generator's; no open-model capacity was measured
    and one calibration was recorded (before round 1)."""
    run = dict(run, schema=3)
    calibration = run.get("calibration")
    if calibration:
        run["calibration"] = {mode: {**{k: v for k, v in entry.items() if k != "k6_cpu_pct"},
                                     "loadgen_cpu_pct": entry.get("k6_cpu_pct")} for mode, entry in calibration.items()}
    run.setdefault("harness_capacity", None)
    run.setdefault("calibrations", None)
    return run


def rename_flags(flags: list[str]) -> list[str]:
    return [OLD_FLAGS.get(flag, flag) for flag in flags]


def _upgrade_summary_2(summary: dict, run: dict) -> dict:
    """schema 2 -> 3. The load generator's component and flag are `loadgen`; `ceiling` becomes `limit`. Schema 2
    judged every load against one closed-model calibration: for a closed-model load that is its load-model
    limit (bound:ceiling -> bound:load-model); for an open-model load it was no limit of its kind, so its
    bound:ceiling is removed and it is marked limit-unknown (issue 18: the open run of rust was flagged at
    160 % of a "ceiling" its own load never met)."""
    s = dict(summary, schema=3)
    closed = s.get("executor", "closed") == "closed"
    ceiling = s.pop("ceiling", None) or {}
    known = ceiling.get("tool_calls_per_s") is not None and closed
    s["limit"] = {"kind": "load-model" if known else None,
                  "tool_calls_per_s": ceiling.get("tool_calls_per_s") if known else None,
                  "fraction": ceiling.get("fraction") if known else None}
    flags = rename_flags(s.get("flags") or [])
    if CEILING_FLAG_2 in flags:
        flags = [f for f in flags if f != CEILING_FLAG_2 or closed]
        flags = ["bound:load-model" if f == CEILING_FLAG_2 else f for f in flags]
    if not known and s.get("publishable") is not None:
        flags.append("limit-unknown")
    s["flags"] = flags
    s["resources"] = {OLD_COMPONENTS.get(k, k): v for k, v in (s.get("resources") or {}).items()}
    if s.get("phase") == "k6":
        s["phase"] = "loadgen"
    # publishable, when assessed, is judged again from the new flags by analysis.summary.upgrade_summary.
    return s


def _open_model_flags_2(flags: list[str]) -> list[str]:
    """A schema-2 open-model measurement's flags as schema 3 reads them (as _upgrade_summary_2 does): its
    bound:ceiling was a closed-model limit it never met, so it goes, and the load is limit-unknown."""
    flags = [f for f in rename_flags(flags) if f != CEILING_FLAG_2]
    return flags if "limit-unknown" in flags else [*flags, "limit-unknown"]


def upgrade_flags_document(document: dict, run: dict | None = None) -> dict:
    """capacity.json or soak.json of schema 2 -> 3: both quote open-model measurements' flags (capacity steps)
    and doubts, which change as their summaries do (_open_model_flags_2); the readers judge a ladder again
    from its steps (capacity.ladder_verdict)."""
    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: (_open_model_flags_2(v) if k == "flags" and isinstance(v, list)
                        else [f for f in rename_flags(v) if f != CEILING_FLAG_2]
                        if k == "doubts" and isinstance(v, list)
                        else walk(v))
                    for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return dict(walk(document), schema=3)


# Schema 3's k6_ names of the load generator's fields, and schema 4's (summary checks, throughput, context).
LOADGEN_NAMES_3 = {"executor": "kind", "k6_exit_code": "loadgen_exit_code",
                   "k6_stopped_early_by_orchestrator": "loadgen_stopped_early",
                   "k6_stopped_by_orchestrator": "loadgen_stopped_early", "k6_iterations": "loadgen_iterations",
                   "k6_http_reqs": "loadgen_http_reqs", "k6_run_s": "loadgen_run_s", "k6_counts": "loadgen_counts"}


def renamed_loadgen_fields(part: dict | None) -> dict | None:
    """A summary's checks or throughput, or a context, with schema 4's names (the generator's fields, the kind)."""
    if part is None:
        return None
    return {LOADGEN_NAMES_3.get(k, k): v for k, v in part.items()}


# Schema 2's one closed-model calibration, recorded in context.json as "the ceiling" of every load.
CEILING_2 = "ceiling_calls_per_s"


def _context_limit_2(context: dict) -> dict:
    """context.json of schema 2 -> 3: its ceiling is the closed model's own limit (`load-model`, the analysis's
    LOAD_MODEL) for a closed-model load, and no limit at all for an open-model one (issue 18)."""
    if CEILING_2 not in context or "limit_kind" in context:
        return context
    ceiling = context[CEILING_2]
    closed = context.get("kind", context.get("executor", "closed")) == "closed" and ceiling is not None
    return {**context, "limit_kind": "load-model" if closed else None, "limit_calls_per_s": ceiling if closed else None}


def upgrade_context(context: Any, where: Path) -> Context:
    """context.json of any schema as the current model. It records no schema: an older one is known by its names
    (schema 2's ceiling, schema 3's k6_ fields and executor). A key the model does not name is left out rather
    than refused: the names an older schema gave up, or one a later version added."""
    if not isinstance(context, dict):
        raise ResultsError(f"{where}: not a JSON object")
    current = renamed_loadgen_fields(_context_limit_2(context)) or {}
    return parsed(Context, {name: value for name, value in current.items() if name in Context.model_fields}, where)


def _upgrade_run_3(run: dict) -> dict:
    """schema 3 -> 4: the config's `executor` (k6's word) is the load's `kind`."""
    config = dict(run.get("config") or {})
    if "executor" in config:
        config["kind"] = config.pop("executor")
    return dict(run, schema=4, config=config)


def _upgrade_summary_3(summary: dict, run: dict) -> dict:
    """schema 3 -> 4: the load generator's fields are named for it, not for k6; `executor` is the load's `kind`."""
    s = dict(summary, schema=4)
    s["checks"] = renamed_loadgen_fields(s.get("checks"))
    s["throughput"] = renamed_loadgen_fields(s.get("throughput"))
    if "executor" in s:
        s["kind"] = s.pop("executor")
    return s


# A dimension plan (run.json config.dimension) recorded before it carried its decision-page question and its
# section's display: what the report asked and showed of each built-in dimension by its name then. The one place
# a dimension's name decides anything outside its own module (mcpbench/dimensions/). "ask": the question with
# `{point}` for its point's heading, the figure, the unit, which point in the section's order (-1 the last, 0 the
# first) and the mode of the loads it is chosen among (DimensionDecision.asked); "section": columns, tables,
# latency ranking, changes (DimensionSection).
PLANS_BY_NAME: dict[str, dict[str, Any]] = {
    "payload": {"ask": ("Most {point} replies per CPU-second", "cpu_per_call", "replies per CPU-second", -1, None),
                "section": ([], [], False, True)},
    "tools-list": {"ask": ("Most calls per CPU-second with {point} registered", "cpu_per_call", "calls per CPU-second",
                           -1, None), "section": (["tools_list"], [], False, True)},
    "agent": {"ask": ("Lowest latency for one agent", "p50_all_calls", "ms, p50 of all calls", 0, None),
              "section": ([], [], True, True)},
    "churn": {"ask": ("Most sessions per CPU-second (connect, one call, disconnect)", "cpu_per_call",
                      "sessions per CPU-second", 0, "session"), "section": ([], [], False, True)},
    "sessions": {"ask": ("Smallest memory holding open sessions ({point})", "mem_peak", "MiB", -1, None),
                 "section": (["memory_rank"], ["session_memory"], False, False)},
    "progress": {"ask": ("Most streamed calls per CPU-second ({point} each)", "cpu_per_call", "calls per CPU-second",
                         -1, None), "section": (["first_notification"], ["progress_cost"], False, True)},
}


def recorded_dimension_plan(run: dict) -> dict:
    """A dimension plan without `decisions` and `section`, filled from its name (PLANS_BY_NAME); a name not there
    asks no question and shows every point's figures and their changes. Not a schema step: the two fields are
    added, and a schema of their own would re-judge every older summary's publishability (summary.upgrade_summary)
    for a change of run.json's config alone."""
    config = run.get("config") or {}
    plan = config.get("dimension")
    if isinstance(plan, dict) and "decision" in plan and "section" in plan:
        # a plan that recorded its one question before a dimension could ask several
        one = plan.get("decision")
        plan = {key: value for key, value in plan.items() if key != "decision"}
        return {**run, "config": {**config, "dimension": {**plan, "decisions": [one] if one else []}}}
    if not isinstance(plan, dict) or "section" in plan:
        return run
    known = PLANS_BY_NAME.get(str(plan.get("name")), {})
    section = plain_section().model_dump()
    if "section" in known:
        section = dict(zip(("columns", "tables", "latency_ranking", "changes"), known["section"], strict=True))
    decisions = []
    if "ask" in known:
        headings = dimension_headings(plan.get("points") or [], config.get("modes") or [], config.get("kind"),
                                      config.get("vus") or [], config.get("rates"))
        text, figure, unit, at, mode = known["ask"]
        asked = DimensionDecision.asked(text, figure, unit, at, mode, headings)
        decisions = [asked.model_dump()] if asked else []
    plan = {**plan, "decisions": decisions, "section": section}
    return {**run, "config": {**config, "dimension": plan}}


RUN_UPGRADES = {1: _upgrade_run_1, 2: _upgrade_run_2, 3: _upgrade_run_3}
SUMMARY_UPGRADES = {1: _upgrade_summary_1, 2: _upgrade_summary_2, 3: _upgrade_summary_3}
# The summary steps that rename and change no figure: a file raised through them still says what its analysis
# computed then (analysis.summary.reanalysis_differences compares it with a re-analysis, figure by figure).
RENAMING_SUMMARY_UPGRADES = (3,)
DOCUMENT_UPGRADES = {2: upgrade_flags_document, 3: lambda document: dict(document, schema=4)}


def upgrade_document(kind: type[BaseModel], document: Any, where: Path) -> dict:
    """capacity.json / soak.json of any readable schema (2 on), as the current SCHEMA and validated."""
    _schema_of(document, where)  # a readable schema, or ResultsError
    while document["schema"] != SCHEMA:
        if document["schema"] not in DOCUMENT_UPGRADES:
            raise ResultsError(f"{where}: schema {document['schema']} has no upgrade for this file")
        document = DOCUMENT_UPGRADES[document["schema"]](document)
    return validated(kind, document, where)


def _schema_of(data: Any, where: Path, default: Any = None) -> int:
    found = data.get("schema", default) if isinstance(data, dict) else None
    if found not in SCHEMAS_READ:
        raise ResultsError(f"{where}: unsupported schema {found!r} (this reader reads schemas "
                           f"{', '.join(map(str, SCHEMAS_READ))})")
    return found


def upgrade_run(run: Any, where: Path) -> dict:
    """run.json of any readable schema, as the current SCHEMA and validated (the original in `schema_read`)."""
    original = _schema_of(run, where)
    while run["schema"] != SCHEMA:
        run = RUN_UPGRADES[run["schema"]](run)
    return dict(validated(Run, recorded_dimension_plan(run), where), schema_read=original)


def summary_fields(summary: Any, run: dict, where: Path) -> tuple[dict, int]:
    """summary.json of any readable schema (a file without one has its run's) raised to the current SCHEMA's
    structure, not yet validated (analysis.summary.upgrade_summary recomputes its figures and validates it),
    and the schema it was read as."""
    original = _schema_of(summary, where, run.get("schema_read", SCHEMA))
    summary = dict(summary, schema=original)
    while summary["schema"] != SCHEMA:
        summary = SUMMARY_UPGRADES[summary["schema"]](summary, run)
    return summary, original


def recorded_figures(summary: dict) -> dict:
    """summary.json's figures as recorded, under the current SCHEMA's names: raised through the steps that only
    rename (RENAMING_SUMMARY_UPGRADES), never through one that judges again; not validated."""
    while summary.get("schema") in RENAMING_SUMMARY_UPGRADES:
        summary = SUMMARY_UPGRADES[summary["schema"]](summary, {})
    return summary
