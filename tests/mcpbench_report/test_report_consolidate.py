"""mcpbench_report.consolidate: pooling runs, percentiles from raw samples, ranks, refusing mixed results."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from scipy import stats as scipy_stats
from mcpbench.results import model
from mcpbench.analysis.stats import latency_stats

from mcpbench_report import load
from mcpbench_report.consolidate import MixedResultsError, consolidate, fingerprint_differences
from mcpbench_report.load import LoadKey, ResultsError
from mcpbench_report.rows import OrderHeld

from report_helpers import AGAIN, HALF_CPU, OPEN, ROUNDS, SCHEMA1, SWEEP, copy_with_manifest, steady, write_results
from mcpbench.results.read import read_samples
from mcpbench.loads import in_window

TEN = LoadKey("session", "closed", 10.0)   # the hand-made results
EIGHT = LoadKey("session", "closed", 8.0)  # the recorded ones


def test_pooled_percentiles_are_not_averaged(tmp_path):
    """Run 1: 100 calls of 1..100 ms; run 2: 10 calls of 1000..1009 ms (window [10, 20)).

    Pooled (110 values, linear interpolation): p50 at rank 54.5 = 55.5 ms; p99 at rank 107.91 = 1007.91 ms.
    Averaging the runs' percentiles would give p50 (50.5 + 1004.5) / 2 = 527.5 and p99 553.96; weighting by
    count would give p50 (100 * 50.5 + 10 * 1004.5) / 110 = 137.23. Only the first is right."""
    run1 = [(10 + i * 0.09, "checkout", 1, float(i + 1)) for i in range(100)]
    run2 = [(10 + i * 0.9, "checkout", 1, float(1000 + i)) for i in range(10)]
    warmup = [(5.0, "checkout", 1, 99999.0)]            # outside the window: must not count
    failed = [(15.0, "checkout", 0, 88888.0)]           # failed calls are not in successful-call latency
    path = write_results(tmp_path, {"srv": [run1 + warmup + failed, run2]})
    cons = consolidate(load.load([path]))
    row = cons.rows[TEN][0]
    assert row.latency_count == 110
    assert row.latency_p50_ms == pytest.approx(55.5)
    assert row.latency_p99_ms == pytest.approx(1007.91)
    assert row.latency_p50_ms != pytest.approx(527.5) and row.latency_p50_ms != pytest.approx(137.23)
    assert row.latency_max_ms == 1009.0 and row.latency_min_ms == 1.0
    assert row.latency_avg_ms == pytest.approx((5050 + 10045) / 110)
    # throughput: the run is the unit; run 1 has 100 ok calls in 10 s, run 2 has 10: their geometric mean, √10
    assert row.per_run_tool_calls_per_s == [10.0, 1.0]
    assert row.tool_calls_per_s == pytest.approx(10 ** 0.5)
    assert row.errors == 1 and row.tool_calls == 111 and row.error_rate == pytest.approx(1 / 111)
    assert row.latency_all_count == 111 and row.latency_all_max_ms == 88888.0   # ... but in all-calls


def test_per_tool_latency_is_pooled_per_tool(tmp_path):
    run1 = [(11.0, "checkout", 1, 10.0), (11.5, "checkout", 1, 30.0), (12.0, "get_user_cart", 1, 1.0),
            (12.5, "tools/list", 1, 500.0)]
    run2 = [(13.0, "checkout", 1, 20.0), (13.5, "get_user_cart", 1, 3.0)]
    cons = consolidate(load.load([write_results(tmp_path, {"srv": [run1, run2]})]))
    row = cons.rows[TEN][0]
    assert row.per_tool["checkout"]["p50"] == 20.0
    assert row.per_tool["get_user_cart"]["avg"] == 2.0
    assert "tools/list" not in row.per_tool
    assert row.latency_count == 5   # tools/list is not a tool call


def test_fixture_single_run_figures_match_summary(consolidated):
    """Recomputed from samples, one run's pooled figures are that run's summary.json figures."""
    rows = {r.server: r for r in consolidated.rows[LoadKey("session", "closed", 16.0)]}
    summary = json.loads((SWEEP / "rust" / "session-16vu-r1" / "summary.json").read_text())
    lat = summary["latency_ms"]["tool_call"]
    rust = rows["rust"]
    pooled = {"avg": rust.latency_avg_ms, "p50": rust.latency_p50_ms, "p95": rust.latency_p95_ms,
              "p99": rust.latency_p99_ms, "max": rust.latency_max_ms}
    for k, value in pooled.items():
        assert value == pytest.approx(lat[k], abs=1e-3)
    assert rows["rust"].http_p95_ms == pytest.approx(summary["latency_ms"]["http_request"]["p95"], abs=1e-3)
    assert rows["rust"].tool_calls_per_s == pytest.approx(summary["throughput"]["tool_calls_per_s"], rel=1e-12)


def test_fixture_pooled_p99_over_runs(consolidated):
    group = consolidated.groups[("python", EIGHT)]
    samples = [in_window(m.samples(), m.window) for m in (r.measurement for r in group.runs)]
    pooled = np.concatenate([s[(s["tool"] != "tools/list") & (s["ok"] == 1)]["call_ms"].to_numpy() for s in samples])
    row = next(r for r in consolidated.rows[EIGHT] if r.server == "python")
    assert row.latency_p99_ms == pytest.approx(latency_stats(pooled)["p99"])
    per_run = [r.p99 for r in group.runs]
    assert row.latency_p99_ms != pytest.approx(float(np.mean(per_run)), rel=1e-3)


def _recorded(root, server, mid="session-8vu-r*"):
    return [json.loads(p.read_text()) for p in sorted(root.glob(f"{server}/{mid}/summary.json"))]


def test_fixture_sections_ranks_and_efficiency(consolidated):
    """Recorded at 8 VUs: rust, go and nodejs reached >= 80 % of the closed model's own limit at 8 VUs in every
    round (flag bound:load-model), so they sit above the ranking unranked; python is the only ranked row. The efficiency
    ranking (CPU ms per call) ranks all four: it stays valid when the harness limits."""
    rows = consolidated.rows[EIGHT]
    assert [r.server for r in rows] == ["rust", "go", "nodejs", "python"]
    assert [r.section for r in rows] == ["harness-limited"] * 3 + ["ranked"]
    assert [r.throughput.rank for r in rows] == [None, None, None, "1"]
    assert [r.throughput.ranked for r in rows] == [False, False, False, True]
    ceiling = json.loads((ROUNDS / "run.json").read_text())["calibration"]["session"]["tool_calls_per_s"]
    for row in rows[:3]:
        summaries = _recorded(ROUNDS, row.server)
        assert all("bound:load-model" in s["flags"] for s in summaries)
        assert all(s["throughput"]["tool_calls_per_s"] >= 0.8 * ceiling for s in summaries)
        assert row.bound_text.startswith("≥ ") and row.bound_text.endswith("limited by the load model (its VUs and think time)")
    python = rows[3]
    summaries = _recorded(ROUNDS, "python")
    tput = [s["throughput"]["tool_calls_per_s"] for s in summaries]
    assert python.runs == 3 and python.run_ids == [ROUNDS.name]
    assert python.tool_calls_per_s == pytest.approx(np.exp(np.mean(np.log(tput))))   # the geometric mean
    assert 0 < python.ci_low < python.tool_calls_per_s < python.ci_high
    assert python.ci_high / python.tool_calls_per_s == pytest.approx(python.tool_calls_per_s / python.ci_low)
    assert python.cv == pytest.approx(np.std(tput, ddof=1) / np.mean(tput))
    assert python.publishable is True and all(s["publishable"] for s in summaries)
    # efficiency: lower CPU ms per successful call ranks first, from the same recorded summaries
    cpu = {r.server: r.cpu_ms_per_call for r in rows}
    assert sorted(cpu, key=cpu.get) == ["rust", "go", "nodejs", "python"]
    assert cpu["rust"] == pytest.approx(np.exp(np.mean(np.log([s["efficiency"]["cpu_ms_per_call"]
                                                               for s in _recorded(ROUNDS, "rust")]))))
    assert [r.cpu.rank for r in rows] == ["1", "2", "3", "4"]


def test_fixture_tiers_and_rank_stability():
    """At half a CPU nodejs and python are both ranked: python's gap to nodejs is tested on the 3 rounds
    both shared (a paired t-test on log ratios: with one pair there is no prior to moderate it by); nodejs was
    ahead in 2 of the 3 rounds."""
    rows = consolidate(load.load([HALF_CPU])).rows[EIGHT]
    ranked = [r for r in rows if r.throughput.ranked]
    assert [r.server for r in ranked] == ["nodejs", "python"]
    tput = {n: {s["run"]: s["throughput"]["tool_calls_per_s"] for s in _recorded(HALF_CPU, n)} for n in ("nodejs", "python")}
    held = sum(tput["nodejs"][r] > tput["python"][r] for r in (1, 2, 3))
    assert ranked[0].throughput.order_held == OrderHeld("python", held, 3)
    assert ranked[0].throughput.order_held.text == f"held in {held}/3 rounds"
    python = ranked[1]
    assert "paired t on log ratios, 3 shared rounds" in python.throughput.vs_leader and python.throughput.family == 1
    p = scipy_stats.ttest_rel(np.log([tput["nodejs"][r] for r in (1, 2, 3)]),
                              np.log([tput["python"][r] for r in (1, 2, 3)])).pvalue
    assert f"p = {p:.3f}" in python.throughput.vs_leader
    assert [r.throughput.rank for r in ranked] == (["1", "2"] if p < 0.05 else ["1=", "1="])


def test_cv_of_the_round_ratio(consolidated):
    """Each run's throughput / the geometric mean of its round (the four servers of ROUNDS)."""
    python = next(r for r in consolidated.rows[EIGHT] if r.server == "python")
    tput = {}
    for path in ROUNDS.glob("*/session-8vu-r*/summary.json"):
        s = json.loads(path.read_text())
        tput.setdefault(s["run"], {})[s["server"]] = s["throughput"]["tool_calls_per_s"]
    assert all(len(t) == 4 for t in tput.values())
    ratios = [tput[r]["python"] / np.exp(np.mean(np.log(list(tput[r].values())))) for r in sorted(tput)]
    assert python.per_run_round_ratio == pytest.approx(ratios)
    assert python.cv_round_ratio_rounds == 3
    assert python.cv_round_ratio == pytest.approx(np.std(ratios, ddof=1) / np.mean(ratios))


def test_harness_bound_row_is_never_ranked(consolidated):
    row = consolidated.rows[EIGHT][0]
    assert row.server == "rust" and row.harness_bound and row.section == "harness-limited"
    assert row.throughput.rank is None and row.throughput.ranked is False
    assert row.bound_text == f"≥ {row.tool_calls_per_s:,.1f} calls/s — limited by the load model (its VUs and think time)"


def _schema2(tmp_path, flags_of: dict, runs: int = 3, rates: dict | None = None, **kw):
    rates = rates or {"a": 9, "b": 6, "c": 3}
    servers = {n: [steady(r + 0.1 * i, 1.0) for i in range(runs)] for n, r in rates.items()}
    summaries = {n: [{"flags": list(flags_of.get(n, []))}] * runs for n in servers}
    return write_results(tmp_path, servers, schema=2, summaries=summaries,
                         config={"runs": runs}, **kw)


def test_sections_publishable_bound_and_apart(tmp_path):
    """Schema 2: a harness-bound row sits above the ranking without a rank; an unpublishable row is apart with
    its reasons; the publishable ones are tiered. Every row says how many runs it rests on."""
    path = _schema2(tmp_path, {"a": ["bound:ceiling"], "c": ["noisy-host"]},
                    rates={"a": 9, "b": 6, "b2": 3, "c": 5})
    rows = consolidate(load.load([path])).rows[TEN]
    by = {r.server: r for r in rows}
    assert [r.server for r in rows] == ["a", "b", "b2", "c"]
    assert by["a"].section == "harness-limited" and by["a"].throughput.rank is None and not by["a"].throughput.ranked
    assert by["b"].section == by["b2"].section == "ranked" and by["b"].publishable is True
    assert by["b"].throughput.rank == "1" and by["b2"].throughput.rank == "2"
    assert by["c"].section == "not-publishable" and by["c"].unpublishable_reasons == ["flag: noisy-host"]
    assert all(r.runs == 3 for r in rows)
    # efficiency: the bound row takes part, the noisy one does not
    assert by["a"].efficiency_section == "ranked" and by["c"].efficiency_section == "not-publishable"
    assert by["a"].cpu.rank is not None and by["c"].cpu.rank is None


def test_efficiency_ranking_lower_is_better(tmp_path):
    """CPU ms per call (50 % of a core): a at ~9 calls/s uses ~55 ms per call, c at ~3 calls/s ~165: a leads."""
    path = _schema2(tmp_path, {"a": ["bound:k6"]})
    cons = consolidate(load.load([path]))
    eff = cons.efficiency_rows(TEN)
    assert [r.server for r in eff] == ["a", "b", "c"]
    assert eff[0].cpu_ms_per_call == pytest.approx(np.exp(np.mean(np.log([500 / (9 + 0.1 * i) for i in range(3)]))),
                                                      rel=1e-3)
    assert eff[0].cpu.rank == "1" and eff[0].cpu.order_held.text == "held in 3/3 rounds"
    assert eff[0].mem.rank == "1=" and eff[0].mem_peak_mb_mean == pytest.approx(100.0)  # same everywhere


def test_one_run_is_not_tested(tmp_path):
    path = _schema2(tmp_path, {}, runs=1)
    rows = consolidate(load.load([path])).rows[TEN]
    assert [r.throughput.rank for r in rows] == [None, None, None]
    assert {r.throughput.rank_note for r in rows} == {"1 run — not tested"}
    assert rows[0].ci_method.startswith("within-run")     # an interval is shown, never used as evidence


def test_missing_rounds_are_said(tmp_path):
    path = _schema2(tmp_path, {})
    shutil.rmtree(path / "b" / "session-10vu-r2")
    mdir = path / "b" / "session-10vu-r2"
    mdir.mkdir()
    # the suite writes an invalid measurement's summary whole, with the status it set
    summary = json.loads((path / "b" / "session-10vu-r1" / "summary.json").read_text())
    summary.update(run=2, status="invalid", phase="infra", reason="redis died")
    (mdir / "summary.json").write_text(json.dumps(summary))
    rows = {r.server: r for r in consolidate(load.load([path])).rows[TEN]}
    assert rows["b"].missing_text == "round 2 of 3 missing: invalid (infra: redis died)"
    assert rows["b"].runs == 2 and rows["b"].throughput.rank is None and rows["b"].throughput.rank_note == "2 runs — not tested"
    assert rows["a"].missing_text is None


def test_all_calls_latency_counts_every_call(tmp_path):
    """Successful calls at 1..4 ms; a failed call at its call_ms (50); a failure whose call was never sent at
    its session_ms (70); a timeout at the request timeout (config 2 s = 2000 ms), not its observed 1900."""
    samples = [(11.0 + i, "checkout", 1, float(i + 1)) for i in range(4)]
    samples += [(15.0, "checkout", 0, 50.0, "http_500"), (16.0, "checkout", 0, None, "jsonrpc_-32000", 70.0),
                (17.0, "checkout", 0, 1900.0, "timeout")]
    path = write_results(tmp_path, {"srv": [samples]}, config={"request_timeout_s": 2})
    row = consolidate(load.load([path])).rows[TEN][0]
    everything = np.array([1.0, 2.0, 3.0, 4.0, 50.0, 70.0, 2000.0])
    assert row.latency_all_count == 7 and row.latency_count == 4
    assert row.latency_all_p99_ms == pytest.approx(latency_stats(everything)["p99"])
    assert row.latency_all_max_ms == 2000.0 and row.latency_max_ms == 4.0
    from mcpbench.analysis import summary as analysis

    calls = in_window(read_samples(path / "srv" / "session-10vu-r1" / "samples.csv.gz"), (10.0, 20.0))
    assert sorted(analysis.all_calls_latency_ms(calls, 2.0)) == sorted(everything)   # summary.json's population


def test_schema1_upgrade_is_honest():
    """SCHEMA1 was written by mcpbench before schema 2 (recorded with commit 584cd9c): read, upgraded, and
    never called publishable — the checks it lacks were not made."""
    d = load.load_results_dir(SCHEMA1)
    assert d.schema_read == 1 and d.run.schema_ == model.SCHEMA and d.run.calibration is None
    m = next(m for m in d.measurements if m.server == "rust" and m.run == 1)
    s = m.summary
    raw = json.loads((m.path / "summary.json").read_text())
    assert raw["schema"] == 1 and not (m.path / "context.json").exists()
    assert m.schema_read == 1 and s.publishable is None and s.unpublishable_reasons == [model.NOT_ASSESSED]
    assert s.throughput.http_rps == raw["throughput"]["v2_rps"] and s.throughput.v2_rps is None
    assert s.host is None and s.warmup.steady is None and s.limit.fraction is None
    res = raw["resources"]["server"]
    assert s.efficiency.cpu_ms_per_call == pytest.approx(
        res["cpu_avg_pct"] / 100 * 1000 / raw["throughput"]["tool_calls_per_s"])
    rows = consolidate([d]).rows[EIGHT]
    assert {r.section for r in rows} == {"not-assessed"} and all(r.publishable is None for r in rows)


def test_per_second_series_match_throughput(consolidated):
    runs = [run for group in consolidated.groups.values() for run in group.runs]
    assert len(runs) >= 2, "the recorded fixtures hold several measured runs"
    assert [run.per_second.mean() for run in runs] == pytest.approx([run.tool_calls_per_s for run in runs])


def test_failures_are_listed_not_dropped(consolidated):
    got = {(f.server, f.what, f.status, f.phase) for f in consolidated.failures}
    assert got == {("broken", "server", "failed", "build"), ("exotic", "server", "unavailable", "build")}
    assert "broken" in consolidated.servers and not consolidated.servers["broken"].measured
    exotic = next(f for f in consolidated.failures if f.server == "exotic")
    assert "no-such-toolchain-mcpbench" in exotic.reason


def test_headline_and_sweeps(consolidated):
    assert consolidated.headline == EIGHT    # the load with the most servers
    assert sorted(consolidated.sweeps()) == [("session", "closed"), ("session", "open")]
    fractions = sorted(k.load for k in consolidated.rows if k.kind_name == "open")
    assert fractions == [0.5, 0.9, 1.5]
    recorded = json.loads((OPEN / "rust" / "session-open0.9-r1" / "summary.json").read_text())
    row = consolidated.rows[LoadKey("session", "open", 0.9, "fraction")][0]
    assert row.dropped_iterations == recorded["throughput"]["dropped_iterations"]


def test_flags_count_runs(consolidated):
    """rust at 4 VUs: the sweep's run reached the ceiling, the open run's closed 4-VU run did not."""
    rust = next(r for r in consolidated.rows[LoadKey("session", "closed", 4.0)] if r.server == "rust")
    flagged = [("bound:load-model" in s["flags"]) for root in (SWEEP, OPEN) for s in _recorded(root, "rust", "session-4vu-r1")]
    assert sorted(flagged) == [False, True]
    assert rust.flags == ["bound:load-model (1/2 runs)"]
    assert rust.unpublishable_reasons[0] == "flag: bound:load-model (1/2 runs)"


def test_refuses_mixed_sdk_versions(tmp_path):
    other = copy_with_manifest(tmp_path, AGAIN, "go", sdk_version="9.9.9")
    with pytest.raises(MixedResultsError, match="server go sdk_version") as exc:
        consolidate(load.load([ROUNDS, other]))
    assert "--allow-mixed" in str(exc.value)
    assert consolidate(load.load([ROUNDS, AGAIN])).rows[EIGHT][0].runs == 6   # same code: the runs pool


def test_refuses_other_machine_unless_allowed(tmp_path):
    a = write_results(tmp_path / "a", {"srv": [steady(5, 1.0)]})
    b = write_results(tmp_path / "b", {"srv": [steady(5, 1.0)]}, run_id="20260102-000000-local",
                      environment={"cpu_model": "Other CPU"}, config={"duration_s": 12})
    dirs = load.load([a, b])
    diffs = fingerprint_differences(dirs)
    assert any(d.startswith("environment.cpu_model") for d in diffs)
    assert any(d.startswith("config.duration_s") for d in diffs)
    with pytest.raises(MixedResultsError, match="cpu_model"):
        consolidate(dirs)
    cons = consolidate(dirs, allow_mixed=True)
    assert cons.differences and cons.rows


def test_same_config_merges_runs(tmp_path):
    a = write_results(tmp_path / "a", {"srv": [steady(5, 1.0)]}, environment={"hostname": "x"})
    b = write_results(tmp_path / "b", {"srv": [steady(7, 1.0)]}, run_id="20260102-000000-local",
                      environment={"hostname": "y"}, config={"vus": [10], "runs": 3})
    cons = consolidate(load.load([a, b]))
    row = cons.rows[TEN][0]
    assert row.runs == 2 and row.per_run_tool_calls_per_s == [5.0, 7.0]


def test_nothing_measured(tmp_path):
    path = write_results(tmp_path, {}, extra_servers={
        "srv": {"status": "failed", "phase": "start", "reason": "port never opened", "measurements": []}})
    with pytest.raises(ResultsError, match="nothing was measured"):
        consolidate(load.load([path]))


def test_interrupted_run_is_noted(tmp_path):
    path = write_results(tmp_path, {"srv": [steady(5, 1.0)]})
    run = json.loads((path / "run.json").read_text())
    run["status"] = "interrupted"
    (path / "run.json").write_text(json.dumps(run))
    cons = consolidate(load.load([path]))
    assert any("interrupted" in w for w in cons.warnings)


def test_inconsistent_summary_is_noted(tmp_path):
    path = write_results(tmp_path, {"srv": [steady(5, 1.0)]})
    summary_path = path / "srv" / "session-10vu-r1" / "summary.json"
    summary = json.loads(summary_path.read_text())
    summary["throughput"]["successful_tool_calls"] += 1
    summary_path.write_text(json.dumps(summary))
    cons = consolidate(load.load([path]))
    assert any("summary.json counts" in w for w in cons.warnings)


def test_copy_of_fixture_with_other_kernel_is_mixed(tmp_path):
    copy = tmp_path / ROUNDS.name
    shutil.copytree(ROUNDS, copy)
    run = json.loads((copy / "run.json").read_text())
    run["run_id"] = "copy"
    run["environment"]["kernel"] = "6.12.0"
    (copy / "run.json").write_text(json.dumps(run))
    with pytest.raises(MixedResultsError, match="environment.kernel"):
        consolidate(load.load([ROUNDS, copy]))


def test_every_recorded_ranking_s_letters_and_ranks_are_what_its_tests_say():
    """Issue 18 item 4 on the recorded runs: in every ranking (each load, throughput and efficiency), two
    ranked servers share a letter exactly when their Holm-corrected test finds no difference, and a rank
    counts exactly the servers proven better."""
    from mcpbench_report import stats

    checked = 0
    for cons, (key, rows) in ((cons, item) for cons in (consolidate(load.load([ROUNDS, AGAIN])),
                                                      consolidate(load.load([HALF_CPU])))
                              for item in cons.rows.items()):
        for metric, prefix, higher in (("tool_calls_per_s", "", True), ("cpu_ms_per_call", "cpu_", False)):
            ranked = [r for r in rows if r.placing(prefix).letters]
            if len(ranked) < 2:
                continue
            names = [r.server for r in ranked]
            ranking = stats.rank({n: next(g for (s, k), g in cons.groups.items() if s == n and k == key).by_round(metric)
                                  for n in names}, higher_better=higher)
            for i, a in enumerate(ranking.order):
                for b in ranking.order[i + 1:]:
                    if ranking.letters[a] is None or ranking.letters[b] is None:
                        continue
                    shared = bool(set(ranking.letters[a]) & set(ranking.letters[b]))
                    assert shared == (not ranking.pairs[(a, b)].significant), (key, metric, a, b)
                    checked += 1
    assert checked >= 3
