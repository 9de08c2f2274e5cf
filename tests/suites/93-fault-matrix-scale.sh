#!/usr/bin/env bash
# Part 2 of the fault matrix (1,000 workers): the cells of
# 92-fault-matrix.sh marked part 2, against a server of its own, so that
# the parts run side by side (in `make check-long`: this part is long).
# Minutes of CPU for the simulated cluster:
# run-all: long
FAULT_PARTS=2 exec "$(dirname "$0")/92-fault-matrix.sh" "$@"
