"""psbench's study report: figures and answers to RQ1-RQ5 from a sweep's results, the benchmark files and
`psbench model predict`. Run through `psbench report` (src/cli/report_command.cpp)."""
