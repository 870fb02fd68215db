"""Whether a run's orchestrator still runs, and the runs whose orchestrator died without a word.

A run that ends normally, by Ctrl-C or SIGTERM says so in run.json. SIGKILL, the OOM killer or a reboot
leave it `running` for ever; the next `mcpbench` start finds such runs (the recorded process is gone, or
is another process that reused its pid, or the machine rebooted) and marks them `abandoned`, naming the
last measurement they finished. A run written on another machine (a shared disk) cannot be checked from
here and is left as it is.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import psutil

from mcpbench.results.layout import RunDir, runs_under
from mcpbench.results.model import Orchestrator, Run

BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
# psutil's create_time comes from /proc's start ticks: the same process reads back within a tick or two.
START_TOLERANCE_S = 1.0


def _boot_id() -> str | None:
    try:
        return BOOT_ID.read_text().strip()
    except OSError:
        return None


def this_orchestrator() -> Orchestrator:
    """run.json `orchestrator` for the running process."""
    return Orchestrator(pid=psutil.Process().pid, started_epoch=round(psutil.Process().create_time(), 3),
                        boot_id=_boot_id(), hostname=socket.gethostname())


def orchestrator_alive(record: Orchestrator | None) -> bool | None:
    """Whether the recorded orchestrator still runs: None when that cannot be told from here (another
    machine, or a run from before the orchestrator was recorded)."""
    if record is None or record.hostname != socket.gethostname():
        return None
    if record.boot_id and record.boot_id != _boot_id():
        return False  # rebooted since
    try:
        process = psutil.Process(record.pid)
        return abs(process.create_time() - record.started_epoch) <= START_TOLERANCE_S
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return False


def last_measurement(run_dir: RunDir, run: Run) -> str | None:
    """`<server>/<measurement>` of the newest summary among the run's listed measurements."""
    newest: tuple[float, str] | None = None
    for name, server in run.servers.items():
        for measurement in server.measurements:
            path = run_dir.server(name).named(measurement).summary
            if path.is_file():
                mtime = path.stat().st_mtime
                if newest is None or mtime > newest[0]:
                    newest = (mtime, f"{name}/{measurement}")
    return newest[1] if newest else None


def abandoned_runs(results_root: Path) -> list[Path]:
    """The run directories under results_root that say `running` while their orchestrator is gone."""
    found = []
    for run_dir in runs_under(results_root):
        try:
            data = json.loads(run_dir.run_json.read_text())
            orchestrator = Orchestrator.model_validate(data["orchestrator"]) if data.get("orchestrator") else None
        except (OSError, ValueError, KeyError):
            continue
        if data.get("status") == "running" and orchestrator_alive(orchestrator) is False:
            found.append(run_dir.path)
    return found
