"""The cancellation dimension's figures, from the load driver's counts (analysis/cancellation.py)."""

from __future__ import annotations

from mcpbench.analysis.cancellation import cancellation
from mcpbench.results.model import LoadgenCounts


def counts(**fields: object) -> LoadgenCounts:
    return LoadgenCounts.model_validate({"iterations": 1, "http_reqs": 1, "dropped_iterations": 0, **fields})


def test_steps_after_each_cancellation_say_whether_the_server_stopped() -> None:
    # python's two points, as the load driver counted them in run 20261207-010006-local-dimension
    ran_on = cancellation(counts(cancelled_by_notice=0, cancelled_by_close=1016, steps_before_cancel=5051,
                                 steps_after_cancel=15269, cancelled_worked_on=1016))
    assert ran_on is not None and not ran_on.stopped and not ran_on.by_notice and ran_on.replies is None
    assert ran_on.verdict == "ran on: 15.0 steps after each cancellation, 100% of the calls"
    # one write in flight as a cancellation arrived is no work the server chose to go on with
    stopped = cancellation(counts(cancelled_by_notice=1185, cancelled_by_close=0, cancel_replies=1185,
                                  steps_before_cancel=5916, steps_after_cancel=1, cancelled_worked_on=1))
    assert stopped is not None and stopped.stopped and stopped.by_notice
    assert stopped.verdict == "stopped: 0.0 steps after each cancellation; 1,185 replies after it"


def test_no_figure_without_work_to_stop_or_without_the_lists() -> None:
    assert cancellation(None) is None
    assert cancellation(counts()) is None  # a workload that cancels nothing
    assert cancellation(counts(cancelled_by_close=10, cancelled_by_notice=0, work_unread="no route")) is None
    # a tool that wrote nothing before any cancellation left nothing to stop: zero after says nothing then
    assert cancellation(counts(cancelled_by_close=10, cancelled_by_notice=0, steps_before_cancel=0,
                               steps_after_cancel=0, cancelled_worked_on=0)) is None
