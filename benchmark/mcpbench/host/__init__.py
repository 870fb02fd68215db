"""This host: the checkout's paths, toolchains, cgroups, processes and process trees, CPU and memory readings
(the 1 Hz sampler), the speed probe, free ports, and the environment's fingerprint."""
