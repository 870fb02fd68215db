"""Every step of a session timed apart (issue 37): the analysis reads session mode's http_ms in the order the
load driver sends the requests, on a recorded real run."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mcpbench.analysis import summary as analysis
from mcpbench.results.read import read_samples

RECORDED = Path(__file__).parents[1] / "fixtures" / "results" / "20261123-113219-local" / "go" / "session-8vu-r1"


def test_session_steps_split_every_request_and_the_handshake_share_is_the_median_of_each_session() -> None:
    samples = read_samples(RECORDED / "samples.csv.gz")
    ok = samples[samples["ok"] == 1]
    steps, share = analysis.session_steps(ok, "session")
    listing = ok["tool"] == "tools/list"
    assert steps["initialize"].count == steps["notifications/initialized"].count == len(ok)
    assert steps["tools/call"].count == int((~listing).sum()) and steps["tools/list"].count == int(listing.sum())
    assert "DELETE" not in steps  # the go server is stateless: no session id, so no DELETE was sent
    parts = ok["http_ms"].str.split(";", expand=True).astype(float)
    # a session's requests never add up to more than the session itself (k6 wrote session_ms in whole ms here)
    assert (parts.sum(axis=1) <= ok["session_ms"] + 1.0).all()
    timed = ~listing & (ok["session_ms"] > 0)  # a session k6 rounded to 0 ms has no share
    calls = parts[timed]
    expected = float(np.median((calls[0] + calls[1]) / ok.loc[timed, "session_ms"]))
    assert share is not None and abs(share - expected) < 1e-12 and 0 < share < 1
    assert steps["initialize"].p50 == float(np.percentile(parts[0], 50))


def test_outside_session_mode_a_sample_is_its_one_request_and_there_is_no_handshake() -> None:
    samples = read_samples(RECORDED / "samples.csv.gz")
    steps, share = analysis.session_steps(samples[samples["ok"] == 1], "persistent")
    assert set(steps) == {"tools/call", "tools/list"} and share is None
