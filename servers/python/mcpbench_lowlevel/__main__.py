"""`python -m mcpbench_lowlevel`: serve the SDK's low-level Server over HTTP on uvicorn with one worker process per
granted core, exactly as `python -m mcpbench_fastmcp` serves MCPServer; with `--stdio`, serve MCP over stdin/stdout
from this one process instead."""

from mcpbench_workload.serving import main

if __name__ == "__main__":
    main("mcpbench_lowlevel", __doc__)
