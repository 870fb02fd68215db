"""One measurement: the bench (runtime + infrastructure), the load test with its sampling and its summary, and
the harness's own limits (calibration)."""
