"""The analysis: what a measurement's raw files say (summary), the statistics, warm-up detection, the capacity
ladder's and the soak's judgements, and re-analysing a results directory. Imports only the results, the kinds of
load and the workload's definitions: the report uses it as it is."""
