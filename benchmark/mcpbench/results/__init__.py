"""The results format (docs/results-format.md), defined once: the model (every file and its fields), the
files' names, the upgrades of older schemas, the readers and the writers. Imports nothing of the orchestrator
above the kinds of load: the report reads through it."""
