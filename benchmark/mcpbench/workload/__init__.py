"""The MCP workload: the three tools and their checks, the MCP client, the Redis seed, and the verification
of a server against them (docs/workload.md)."""
