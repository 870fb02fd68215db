"""A measurement's context.json as the analysis tests build it (model.Context), and the analysis called on it as the
suite calls it: summary.json's figures of one server's round under the context's load."""

from __future__ import annotations

from typing import Any

import pandas as pd

from mcpbench.analysis import summary as analysis
from mcpbench.loads.base import RecordedLoad
from mcpbench.results.model import Context, Sample, Summary

# What a measurement on this machine records when nothing else is said: the generator's own exit and counts
# unknown, no speed probe, no pinning, no warm-up recorded (each test gives what it is about).
UNSAID: dict[str, Any] = dict(think_time_s=0.05, request_timeout_s=30.0, harness_cores=1, limits_applied=True,
                              loadgen_exit_code=None, loadgen_stopped_early=False, loadgen_counts=None,
                              loadgen_run_s=None, host_probe=None, server_cpus=[], harness_cpus=[], warmup=None)


def context(**fields: Any) -> Context:
    """A context.json with `fields` (mode, kind, vus and rate at least), the rest UNSAID."""
    return Context(**{**UNSAID, **fields})


def recorded_load(ctx: Context) -> RecordedLoad:
    """What summary.json says of the context's load (a rate given directly: no fraction)."""
    return RecordedLoad(mode=ctx.mode, kind=ctx.kind, vus=ctx.vus, rate=ctx.rate)


def summarize(samples: pd.DataFrame, window: tuple[float, float], resources: list[Sample], ctx: Context,
              server: str = "server", run: int = 1) -> Summary:
    return analysis.summarize(samples, window, resources, ctx, recorded_load(ctx), server, run)
