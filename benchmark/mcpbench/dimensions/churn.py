"""churn: a whole session per call (connect, one call, disconnect) beside persistent sessions, closed loop at 10 VUs
without think time: what a session costs (session mode's CPU per call)."""

from __future__ import annotations

from mcpbench.dimensions.base import Dimension, Question

DIMENSION = Dimension(
    "churn", "cheapest session", "session,persistent", "10", 0.0,
    asks=(Question("Most sessions per CPU-second (connect, one call, disconnect)", "cpu_per_call",
                 "sessions per CPU-second", at=0, mode="session"),),
    order=40)
