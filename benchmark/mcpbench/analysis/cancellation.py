"""What a server did for calls its clients had cancelled (the `cancellation` dimension): from the load driver's counts
(loadgen-counts.json; load-driver/cancel.go), the calls cancelled and how, the steps their work lists hold from
before and from after each cancellation, the calls that went on working, and the replies that still came after a
notifications/cancelled."""

from __future__ import annotations

from dataclasses import dataclass

from mcpbench.results.model import LoadgenCounts

# Steps after a cancellation per cancelled call at most for a server that stopped: the one step it may have begun
# when the cancellation reached it (a write in flight) is not work it chose to go on with.
STOPPED_STEPS = 1.0


@dataclass(frozen=True)
class Cancellation:
    cancelled: int                 # calls the client cancelled
    by_notice: bool                # by notifications/cancelled (else by closing the stream)
    steps_before: float            # per cancelled call, written before its cancellation
    steps_after: float             # per cancelled call, written after it
    worked_on: int                 # cancelled calls with any step after it
    replies: int | None            # replies that still came after the notification (None: none listened for)

    @property
    def stopped(self) -> bool:
        """The server stopped the calls' work: at most the step in flight after each cancellation, on average."""
        return self.steps_after <= STOPPED_STEPS

    @property
    def verdict(self) -> str:
        replied = f"; {self.replies:,} replies after it" if self.replies else ""
        if self.stopped:
            return f"stopped: {self.steps_after:.1f} steps after each cancellation{replied}"
        return (f"ran on: {self.steps_after:.1f} steps after each cancellation, {self.worked_on / self.cancelled:.0%} "
                f"of the calls{replied}")


def cancellation(counts: LoadgenCounts | None) -> Cancellation | None:
    """The figures of one measurement; None when it cancelled nothing or its work lists went unread (a tool that
    wrote no step before any cancellation left nothing to stop: None too)."""
    if counts is None or counts.steps_after_cancel is None or counts.steps_before_cancel is None:
        return None
    by_notice, by_close = counts.cancelled_by_notice or 0, counts.cancelled_by_close or 0
    cancelled = by_notice + by_close
    if not cancelled or not counts.steps_before_cancel:
        return None
    return Cancellation(cancelled=cancelled, by_notice=by_notice > by_close,
                        steps_before=counts.steps_before_cancel / cancelled,
                        steps_after=counts.steps_after_cancel / cancelled,
                        worked_on=counts.cancelled_worked_on or 0, replies=counts.cancel_replies)
