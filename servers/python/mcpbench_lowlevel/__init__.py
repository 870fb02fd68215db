"""mcpbench reference server: the official MCP Python SDK's low-level Server (no MCPServer layer), stateless."""
