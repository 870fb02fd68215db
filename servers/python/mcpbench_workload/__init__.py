"""What the python servers share whatever MCP layer serves them: the workload's Redis and API I/O (`backend`) and the
HTTP/stdio launch (`serving`). `mcpbench_fastmcp` puts MCPServer on top, `mcpbench_lowlevel` the SDK's low-level
Server."""
