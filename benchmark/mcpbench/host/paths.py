"""Where things live: the checkout this package was installed from, and its tool and results folders."""

from __future__ import annotations

import os
from pathlib import Path

# benchmark/mcpbench/host/paths.py -> the checkout root; MCPBENCH_HOME overrides (e.g. an installed wheel).
ROOT = Path(os.environ.get("MCPBENCH_HOME") or Path(__file__).resolve().parents[3])
SERVERS_DIR = ROOT / "servers"
INFRA_DIR = ROOT / "infra"
API_SERVICE_DIR = INFRA_DIR / "api-service"
TOOLS_BIN = ROOT / ".tools" / "bin"
RESULTS_DIR = ROOT / "results"
# the official MCP conformance suite, pinned (verify --conformance)
CONFORMANCE_DIR = ROOT / "benchmark" / "conformance"
K6_SCRIPT = Path(__file__).resolve().parents[1] / "k6" / "load.js"
API_SERVICE_BIN = TOOLS_BIN / "api-service"
