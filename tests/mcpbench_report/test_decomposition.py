"""Where the time goes: the overhead ratios of the report's decomposition page."""

from __future__ import annotations

import math

import numpy as np
import pytest
from mcpbench.results import model
from mcpbench_report import load
from mcpbench_report.consolidate import consolidate
from mcpbench_report.decomposition import decomposition, paired_ratio
from mcpbench_report.load import LoadKey

from report_helpers import OVERHEADS, WHAT_IF
from mcpbench.loads import in_window


def test_a_ratio_pairs_rounds_and_its_interval_is_a_t_interval_on_the_logs() -> None:
    a = {("r", 1): 2.0, ("r", 2): 4.4, ("r", 3): 3.0, ("r", 4): 9.9}
    b = {("r", 1): 1.0, ("r", 2): 2.0, ("r", 3): 1.5}  # round 4 has no partner: left out
    ratio = paired_ratio(a, b, "stateless · 50 VUs")
    logs = [math.log(2.0), math.log(2.2), math.log(2.0)]
    assert ratio is not None and ratio.n == 3
    assert ratio.value == pytest.approx(math.exp(sum(logs) / 3))
    assert ratio.low < ratio.value < ratio.high
    # t(0.975, 2) = 4.303: the interval is as wide as three rounds allow
    half = 4.302653 * (sum((x - sum(logs) / 3) ** 2 for x in logs) / 2) ** 0.5 / 3 ** 0.5
    assert ratio.high == pytest.approx(math.exp(sum(logs) / 3 + half), rel=1e-5)


def test_below_three_rounds_a_ratio_has_no_interval_and_says_too_few_rounds() -> None:
    """Issue 18 item 3: with 2 rounds t(0.975, 1) = 12.7 and the recorded interval read [0.50–5.77]."""
    one = paired_ratio({1: 3.0}, {1: 1.5, 2: 1.0}, "x")
    assert one is not None and one.value == pytest.approx(2.0) and one.low is None and one.n == 1
    two = paired_ratio({1: 3.0, 2: 2.0}, {1: 1.5, 2: 1.0}, "x")
    assert two is not None and two.n == 2 and two.low is None and two.high is None
    assert "too few rounds" in two.text and "[" not in two.text
    assert paired_ratio({1: 3.0}, {2: 1.0}, "x") is None
    assert paired_ratio({1: None}, {1: 1.0}, "x") is None  # a missing figure pairs with nothing


def _median_session_ms(run) -> float:
    """The median whole-iteration time of a measurement's window, straight from its recorded samples."""
    m = run.measurement
    calls = in_window(m.samples(), m.window)
    calls = calls[(calls["tool"] != model.TOOL_LIST) & (calls["ok"] == 1)]
    return float(np.median(calls["session_ms"].dropna()))


def test_the_session_overhead_is_the_whole_session_of_clean_measurements() -> None:
    """Issue 18 item 3, on the recorded OVERHEADS run: the session ratio is the median time of a whole
    iteration (initialize → notification → call → DELETE against one call), paired by round over the
    measurements with no flag but bound:load-model. A session is four requests where stateless is one: the
    ratio is above 1 for every server (the tools/call alone read ×0.57 for the baseline)."""
    cons = consolidate(load.load([OVERHEADS]))
    rows = {r.server: r for r in decomposition(cons)}
    assert set(rows) == {"baseline", "go", "python"}
    key = next(k for (server, k) in cons.groups if server == "go" and k.mode == "session")
    for server, row in rows.items():
        session = cons.groups[(server, key)]
        stateless = cons.groups[(server, LoadKey("stateless", key.kind_name, key.load, key.basis))]
        clean = lambda g: {r.round_id: _median_session_ms(r) for r in g.runs  # noqa: E731
                           if set(r.flags) <= {"bound:load-model"}}
        a, b = clean(session), clean(stateless)
        shared = [k for k in a if k in b]
        cell = row.cells["session_latency"]
        assert cell.n == len(shared) and cell.value == pytest.approx(
            math.exp(np.mean([math.log(a[k] / b[k]) for k in shared])))
        assert cell.value > 1.2, (server, cell.text)
        # an unsteady round is left out: the rounds paired are fewer than the rounds measured
        flagged = [r.round_id for r in session.runs if "unstable-host" in r.flags]
        assert all(k not in shared for k in flagged)


def test_a_what_if_twin_is_paired_with_the_server_it_varies() -> None:
    """Issue 24 item 4, on the recorded WHAT_IF run (`--what-if unguarded:ALLOWED_HOSTS=*`): the twin's row holds
    its CPU per call over the base's, round by round; the base has no what-if cell."""
    cons = consolidate(load.load([WHAT_IF]))
    rows = {r.server: r for r in decomposition(cons)}
    assert set(rows) == {"go-unguarded"}
    assert cons.servers["go-unguarded"].manifest.overrides == {"ALLOWED_HOSTS": "*"}
    key = next(k for (server, k) in cons.groups if server == "go")
    clean = lambda g: {r.round_id: r.cpu_ms_per_call for r in g.runs  # noqa: E731
                       if set(r.flags) <= {"bound:load-model"}}
    a, b = clean(cons.groups[("go-unguarded", key)]), clean(cons.groups[("go", key)])
    shared = [k for k in a if k in b]
    cell = rows["go-unguarded"].cells["what_if_cpu"]
    assert cell.n == len(shared) >= 2
    assert cell.value == pytest.approx(math.exp(np.mean([math.log(a[k] / b[k]) for k in shared])))
    assert rows["go-unguarded"].cells["sdk_cpu"] is None


def test_a_what_if_is_a_finding_only_when_its_whole_interval_is_beyond_two_percent() -> None:
    from mcpbench_report.decomposition import Ratio, beyond, what_ifs_of

    assert beyond(Ratio(0.95, 0.93, 0.97, 5, "x")) and beyond(Ratio(1.05, 1.03, 1.08, 5, "x"))
    assert not beyond(Ratio(0.97, 0.95, 0.99, 5, "x"))  # below 1, but not surely by more than 2 %
    assert not beyond(Ratio(0.90, None, None, 2, "x"))  # too few rounds: no interval, no finding
    assert not beyond(None)
    cons = consolidate(load.load([WHAT_IF]))
    rows, manifests = decomposition(cons), {n: v.manifest for n, v in cons.servers.items()}
    # the base's page and the twin's page both list the pair; an unrelated server's does not
    assert [r.server for r in what_ifs_of(rows, "go", manifests)] == ["go-unguarded"]
    assert [r.server for r in what_ifs_of(rows, "go-unguarded", manifests)] == ["go-unguarded"]
    assert what_ifs_of(rows, "rust", manifests) == []
