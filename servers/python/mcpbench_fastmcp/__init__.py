"""mcpbench reference server: the official MCP Python SDK's FastMCP, stateless, on uvicorn."""
