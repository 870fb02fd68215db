"""Where the server under test runs: plain local processes in cgroups, or docker containers."""
