"""`mcpbench metrics`: a run's figures as OpenMetrics text (a gauge per figure, labelled by server, load (as the
report heads it), mode, kind of load and level), for Prometheus' textfile collector or a push gateway. The figures
are the report's own rows (consolidate: geometric means over rounds, latency percentiles pooled from every round's
samples), so a dashboard and the site never disagree. Written with prometheus_client's OpenMetrics exposition
rather than by hand.

Each gauge carries `publishable` ("true"/"false"/"unknown") and `limited_by` ("" where the server set the figure,
else the harness limits the consolidation names): a scraper that alerts on a harness-limited throughput would
alert on the harness."""

from __future__ import annotations

from collections.abc import Iterable

from prometheus_client import CollectorRegistry
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.openmetrics.exposition import generate_latest

from .consolidate import Consolidated
from .rows import Row

PREFIX = "mcpbench_"
LABELS = ("server", "load", "mode", "kind", "level", "publishable", "limited_by")
# (metric name, help, the Row's field): every figure a ranking reads, in its own unit.
FIGURES = (
    ("tool_calls_per_second", "successful tool calls per second, geometric mean over rounds", "tool_calls_per_s"),
    ("cpu_ms_per_call", "server CPU milliseconds per successful tool call, geometric mean over rounds",
     "cpu_ms_per_call"),
    ("latency_p50_ms", "all-calls median latency in ms, pooled over rounds", "latency_all_p50_ms"),
    ("latency_p99_ms", "all-calls 99th percentile latency in ms, pooled over rounds", "latency_all_p99_ms"),
    ("error_ratio", "failed tool calls over tool calls", "error_rate"),
    ("memory_peak_mib", "the server's peak memory in MiB", "mem_peak_mb"),
    ("rounds", "rounds the figures are over", "runs"),
)


class RunCollector:
    """The consolidated rows as metric families (prometheus_client's custom-collector protocol)."""

    def __init__(self, rows: Iterable[Row]):
        self.rows = list(rows)

    def collect(self) -> Iterable[Metric]:
        for name, text, field in FIGURES:
            family = GaugeMetricFamily(PREFIX + name, text, labels=LABELS)
            for row in self.rows:
                value = getattr(row, field)
                if value is None:
                    continue
                publishable = "unknown" if row.publishable is None else str(row.publishable).lower()
                family.add_metric([row.server, row.config, row.mode, row.kind, f"{row.load:g}", publishable,
                                   ", ".join(row.limited_by)], float(value))
            yield family


def openmetrics(cons: Consolidated) -> str:
    """Every row of every load of the consolidated results, as OpenMetrics text (ends with `# EOF`)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(RunCollector(row for key in cons.keys for row in cons.rows.get(key, [])))
    return generate_latest(registry).decode()
