"""A child that the kernel signals when the orchestrator dies without a word (SIGKILL, the OOM killer).

prctl(PR_SET_PDEATHSIG), from a child between fork and exec. The kernel ties it to the forking thread: every
spawn that relies on it comes from the main thread, which lives as long as the orchestrator.
"""

from __future__ import annotations

import ctypes
import os

_PR_SET_PDEATHSIG = 1
_libc: ctypes.CDLL | None
try:
    _libc = ctypes.CDLL(None, use_errno=True)
except OSError:  # not glibc/musl: children then outlive a SIGKILLed orchestrator until the next start
    _libc = None

available = _libc is not None


def signal_me_when_parent_dies(sig: int, parent: int) -> None:
    """In the child, before exec: `sig` when `parent` dies; exits at once when it died before the prctl."""
    if _libc is None:
        return
    _libc.prctl(_PR_SET_PDEATHSIG, sig)
    if os.getppid() != parent:
        os._exit(1)
