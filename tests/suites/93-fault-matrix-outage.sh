#!/usr/bin/env bash
# Part 3 of the fault matrix (outages, rotated credentials and certificates): the cells of
# 92-fault-matrix.sh marked part 3, against a server of its own, so that
# the parts run side by side in `make check`.
FAULT_PARTS=3 exec "$(dirname "$0")/92-fault-matrix.sh" "$@"
