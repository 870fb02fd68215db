"""mcpbench reference server: the official MCP Python SDK's MCPServer (formerly FastMCP), stateless, on uvicorn
(python) or granian (python-granian)."""
