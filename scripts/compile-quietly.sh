#!/bin/sh
# The build's own kernels: `compile-quietly.sh LOG TILEC ARGS...` runs
# TILEC ARGS... with its messages (remarks, warnings) in LOG, and shows
# them only where it fails. (A user's build shows them: tilec_add_kernels.)
log=$1
shift
"$@" 2> "$log" || { status=$?; cat "$log" >&2; exit $status; }
