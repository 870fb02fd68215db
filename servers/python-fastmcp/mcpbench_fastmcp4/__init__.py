"""mcpbench reference server: FastMCP 4.x (the standalone framework, PyPI `fastmcp`), stateless, on uvicorn."""
