"""What a server kept of sessions nobody closed (the `abandoned` dimension): sessions opened, called once and left
without DELETE at a steady rate, then nobody for a while, the server's process tree read at 1 Hz throughout
(processes.csv). From those readings: the memory each abandoned session added, whether the server gave it back
after the clients stopped and how long that took, its open files, threads and CLOSE_WAIT sockets before, at the
end of the abandonment and at the end of the watch, and its calls' p99 early and late in the abandonment (do live
clients feel the sessions pile up)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from mcpbench.analysis.stats import latency_stats
from mcpbench.analysis.summary import NO_FAILURE, UNREAD, all_calls_latency_ms
from mcpbench.loads import tool_calls

# Reclaimed: the tree's RSS back below its level before the abandonment plus this share of what it added.
RECLAIMED_SHARE = 0.5
# Less growth than this is no growth to reclaim: a runtime's RSS moves by a few MiB on its own (allocator arenas,
# a GC cycle), so a smaller change says nothing about sessions.
MIN_GROWTH_MB = 2.0
# The first session's ping after the watch: its HTTP status, read as whether the server still held it.
HELD: dict[int | None, bool] = {200: True, 404: False}
# Readings pooled at each end (1 Hz: seconds), so one reading a GC caught mid-cycle does not set a level.
EDGE_READINGS = 3


@dataclass(frozen=True)
class TreeState:
    """One reading of the tree's state at a moment of the test: before, at the end of the abandonment, at the end."""

    rss_mb: float | None
    fds: float | None
    threads: float | None
    close_wait: float | None


@dataclass(frozen=True)
class Abandonment:
    sessions: int                    # sessions left open: the driver's count, else the successful samples'
    issued_ids: bool                 # the server issued session ids (one that issues none keeps no session)
    abandon_s: float                 # how long sessions were being abandoned
    watched_s: float                 # how long the tree was watched after the last one
    before: TreeState
    peak: TreeState                  # at the end of the abandonment
    end: TreeState                   # at the end of the watch
    kib_per_session: float | None    # RSS over sessions abandoned, the abandonment's second half (least squares)
    kib_per_session_whole: float | None  # (peak - before) / sessions: the whole abandonment, steps of a heap included
    kept_share: float | None         # (end - before) / (peak - before) of RSS; None: no growth to reclaim
    reclaimed_after_s: float | None  # the first reading back within RECLAIMED_SHARE of the growth, after the last
    p99_early_ms: float | None       # every call's p99, the abandonment's first third
    p99_late_ms: float | None        # and its last third
    # The first session left, pinged under its id after the watch: True still answered (200), False let go (404),
    # None not asked (a run recorded before the driver asked, or no answer).
    oldest_held: bool | None = None
    # Over stdio (a client that stopped reading until the watch): whether the server answered a ping once the
    # client read again and the watch was over; None over HTTP.
    answered_after: bool | None = None

    @property
    def grew(self) -> bool:
        return (self.before.rss_mb is not None and self.peak.rss_mb is not None
                and self.peak.rss_mb - self.before.rss_mb >= MIN_GROWTH_MB)

    @property
    def verdict(self) -> str:
        """In words: reclaimed after how long, kept (with how much), or nothing to reclaim."""
        if not self.issued_ids:
            return "no session to keep: the server issued no session id"
        if self.answered_after is False:
            return f"stopped answering: no reply to a ping after the {self.watched_s:.0f} s watch"
        if self.oldest_held:
            rss = (f"; RSS back within half of its growth {self.reclaimed_after_s:.0f} s after the last session "
                   "(garbage collected, the sessions kept)" if self.grew and self.reclaimed_after_s is not None else "")
            return f"still held: the first session answered after {self.watched_s:.0f} s{rss}"
        if not self.grew:
            return f"no growth of {MIN_GROWTH_MB:g} MiB or more to reclaim"
        if self.reclaimed_after_s is not None:
            return f"reclaimed {self.reclaimed_after_s:.0f} s after the last session"
        kept = f"{self.kept_share:.0%} of the growth kept" if self.kept_share is not None else "kept"
        let_go = "the first session let go (404), but " if self.oldest_held is False else ""
        return f"not reclaimed: {let_go}{kept} after {self.watched_s:.0f} s"

    @property
    def freed(self) -> bool:
        """Whether the server gave abandoned sessions back: the first one let go when it was asked about, else its
        RSS back within RECLAIMED_SHARE of the growth (a runtime that only collected the load's garbage is caught
        by the first: it still answers the session)."""
        if self.oldest_held is not None:
            return not self.oldest_held
        return self.grew and self.reclaimed_after_s is not None


def _level(readings: pd.DataFrame) -> TreeState:
    def median(column: str) -> float | None:
        values = pd.to_numeric(readings[column], errors="coerce").dropna() if column in readings else pd.Series()
        return float(values.median()) if len(values) else None
    return TreeState(median("rss_mb"), median("fds"), median("threads"), median("close_wait"))


def abandonment(samples: pd.DataFrame, processes: pd.DataFrame, window: tuple[float, float],
                request_timeout_s: float, left_open: int | None,
                oldest_status: int | None = None, answered_after: bool | None = None) -> Abandonment | None:
    """The figures of one measurement: `window` is where sessions were being abandoned (the staged load's
    running span), `processes` the tree's 1 Hz readings (t_s from the test's start), `left_open` the load
    driver's count of sessions left open (over stdio: of requests sent unread) and `oldest_status` its ping of
    the first one after the watch, `answered_after` over stdio its ping of the server once it read again
    (loadgen-counts.json; None: not counted, not asked); None without readings."""
    start, end = window
    readings = processes.sort_values("t_s")
    if readings.empty or samples.empty:
        return None
    during = readings[(readings["t_s"] >= start) & (readings["t_s"] < end)]
    after = readings[readings["t_s"] >= end]
    before = _level(readings[readings["t_s"] < start + EDGE_READINGS])
    peak = _level(during.tail(EDGE_READINGS))
    last = _level(after.tail(EDGE_READINGS)) if len(after) else peak
    calls = tool_calls(samples)
    # what was abandoned: a session per answered call, or over stdio a request sent unread
    ok = calls[(calls["ok"] == 1) | (calls["error_kind"] == UNREAD)].sort_values("t_s")
    calls = calls[~calls["error_kind"].isin(NO_FAILURE)]   # the calls that had an answer to wait for
    abandoned = np.searchsorted(ok["t_s"].to_numpy(dtype=float), during["t_s"].to_numpy(dtype=float), side="right")
    second_half = during["t_s"].to_numpy(dtype=float) >= (start + end) / 2
    rss = pd.to_numeric(during["rss_mb"], errors="coerce").to_numpy(dtype=float)
    usable = second_half & np.isfinite(rss)
    per_session = None
    if usable.sum() >= 3 and np.ptp(abandoned[usable]) > 0:
        slope = np.polyfit(abandoned[usable], rss[usable], 1)[0]
        per_session = float(slope * 1024)
    kept = reclaimed = None
    if before.rss_mb is not None and peak.rss_mb is not None and peak.rss_mb - before.rss_mb >= MIN_GROWTH_MB:
        growth = peak.rss_mb - before.rss_mb
        if last.rss_mb is not None:
            kept = (last.rss_mb - before.rss_mb) / growth
        back = after[pd.to_numeric(after["rss_mb"], errors="coerce") <= before.rss_mb + RECLAIMED_SHARE * growth]
        reclaimed = float(back["t_s"].iloc[0]) - end if len(back) else None
    third = (end - start) / 3
    early = calls[(calls["t_s"] >= start) & (calls["t_s"] < start + third)]
    late = calls[(calls["t_s"] >= end - third) & (calls["t_s"] < end)]
    called = int(len(ok[(ok["t_s"] >= start) & (ok["t_s"] < end)]))
    sessions = left_open if left_open is not None else called
    whole = ((peak.rss_mb - before.rss_mb) * 1024 / sessions
             if sessions and peak.rss_mb is not None and before.rss_mb is not None else None)
    return Abandonment(
        sessions=sessions, issued_ids=left_open != 0, abandon_s=end - start,
        watched_s=float(readings["t_s"].max()) - end if len(after) else 0.0, before=before, peak=peak, end=last,
        kib_per_session=per_session, kib_per_session_whole=whole, kept_share=kept, reclaimed_after_s=reclaimed,
        p99_early_ms=_p99(early, request_timeout_s), p99_late_ms=_p99(late, request_timeout_s),
        oldest_held=HELD.get(oldest_status), answered_after=answered_after)


def _p99(calls: pd.DataFrame, request_timeout_s: float) -> float | None:
    return latency_stats(all_calls_latency_ms(calls, request_timeout_s))["p99"] if len(calls) else None
