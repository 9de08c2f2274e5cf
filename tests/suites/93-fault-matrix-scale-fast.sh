#!/usr/bin/env bash
# Part 4 of the fault matrix (1,000 workers of 0.5 s, every log): the cell of
# 92-fault-matrix.sh marked part 4, against a server of its own, so that the
# parts run side by side (in `make check-long`: this part is long).
# Minutes of CPU for the simulated cluster:
# run-all: long
FAULT_PARTS=4 exec "$(dirname "$0")/92-fault-matrix.sh" "$@"
