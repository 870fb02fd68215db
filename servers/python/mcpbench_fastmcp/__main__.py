"""`python -m mcpbench_fastmcp`: serve MCPServer over HTTP on uvicorn (`--server granian`: on granian) with one
worker process per granted core; with `--stdio`, serve MCP over stdin/stdout from this one process instead."""

from mcpbench_workload.serving import main

if __name__ == "__main__":
    main("mcpbench_fastmcp", __doc__)
