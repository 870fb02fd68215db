"""The soak page's rows (`mcpbench soak` results): per server its soak.json as judged by mcpbench.soak, and
the 1 Hz process series (processes.csv) its verdicts were drawn from, for the charts."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from mcpbench.analysis import soak as criteria
from mcpbench.results import model

from .consolidate import Consolidated, request_timeout_s

# The criteria as the page states them (the numbers are mcpbench.soak's constants, nowhere else).
CRITERIA_TEXT = {
    "alive": "the measurement ended ok: a server that crashed or was cut off fails, however flat its memory",
    "rss": f"RSS at the end at most {criteria.RSS_GROWTH_MAX:.0%} above the post-warm-up baseline",
    "fds": f"open file descriptors at the end at most max({criteria.FD_SLACK[0]}, {criteria.FD_SLACK[1]:.0%}) above "
           "the most seen in the window's first half (pools that open lazily up to their bound stop; a leak does not), "
           f"and no rise over the second half of {criteria.FD_LEAK_MIN_PER_H:g}/h or more that its interval proves",
    "threads": f"threads at the end at most max({criteria.THREAD_SLACK[0]}, {criteria.THREAD_SLACK[1]:.0%}) above "
               "the most seen in the window's first half",
    "p99": f"all-calls p99 at the end at most {criteria.P99_DRIFT_MAX:g}x the baseline's "
           f"(medians of {criteria.EDGE_BUCKETS} buckets at each end; at least {criteria.MIN_BUCKETS} buckets)",
    "errors": "failed tool calls over the window within the error SLO",
}


@dataclass
class SoakRow:
    server: str
    display_name: str
    run_id: str
    document: model.SoakResult   # soak.json, judged again
    processes: pd.DataFrame    # processes.csv of its measurement
    chart: str | None = None


def soak_rows(cons: Consolidated) -> list[SoakRow]:
    """Every soak, judged again from its data by today's rules (mcpbench.soak.rejudge): a soak.json
    written by older code shows what today's criteria say of it."""
    rows = []
    for name, view in cons.servers.items():
        for record in view.records:
            if not record.soak:
                continue
            judged, processes = criteria.rejudge(record.soak, record.path / record.soak.measurement,
                                                 request_timeout_s(record.results))
            rows.append(SoakRow(name, view.display_name, record.results.run_id, judged, processes))
    return sorted(rows, key=lambda r: (r.display_name, r.run_id))
