"""The soak page's rows (`mcpbench soak` results): per server its soak.json as judged by mcpbench.soak, and
the 1 Hz process series (processes.csv) its verdicts were drawn from, for the charts."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from mcpbench import model, soak as criteria
from mcpbench.measure import PROCESSES_FILE

from .consolidate import Consolidated

# The criteria as the page states them (the numbers are mcpbench.soak's constants, nowhere else).
CRITERIA_TEXT = {
    "rss": f"RSS at the end at most {criteria.RSS_GROWTH_MAX:.0%} above the post-warm-up baseline",
    "fds": f"open file descriptors at the end at most max({criteria.FD_SLACK[0]}, {criteria.FD_SLACK[1]:.0%}) above "
           "the most seen in the window's first half (pools that open lazily up to their bound stop; a leak does not)",
    "threads": f"threads at the end at most max({criteria.THREAD_SLACK[0]}, {criteria.THREAD_SLACK[1]:.0%}) above "
               "the most seen in the window's first half",
    "p99": f"all-calls p99 at the end at most {criteria.P99_DRIFT_MAX:g}x the baseline's "
           f"(medians of up to {criteria.EDGE_BUCKETS} buckets at each end)",
    "errors": "failed tool calls over the window within the error SLO",
}


@dataclass
class SoakRow:
    server: str
    display_name: str
    run_id: str
    document: dict             # soak.json
    processes: pd.DataFrame    # processes.csv of its measurement
    chart: str | None = None


def soak_rows(cons: Consolidated) -> list[SoakRow]:
    rows = []
    for name, view in cons.servers.items():
        for record in view.records:
            if not record.soak:
                continue
            path = record.path / record.soak["measurement"] / PROCESSES_FILE
            rows.append(SoakRow(name, view.display_name, record.results.run_id, record.soak, model.read_processes(path)))
    return sorted(rows, key=lambda r: (r.display_name, r.run_id))
