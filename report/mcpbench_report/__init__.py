"""Static report site for mcpbench results."""
