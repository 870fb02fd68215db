"""Results files: written whole, readable by whoever publishes them."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import numpy as np

from mcpbench.results import write_json


def test_json_is_written_whole_and_readable_by_a_web_server(tmp_path: Path) -> None:
    target = tmp_path / "server" / "summary.json"
    write_json(target, {"calls_per_s": np.float64(12.5), "path": Path("/x")})
    assert json.loads(target.read_text()) == {"calls_per_s": 12.5, "path": "/x"}
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert [p.name for p in target.parent.iterdir()] == ["summary.json"]  # no temporary file left
