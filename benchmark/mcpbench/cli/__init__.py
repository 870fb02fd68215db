"""The `mcpbench` command line. Experiments' commands are built from the experiments registry."""
