"""mcpbench: a reproducible performance benchmark for MCP servers."""

__version__ = "0.1.0"
