#!/usr/bin/env bash
# Instructions per iteration of resolver-bench's --ir-loop loops under valgrind callgrind,
# counted inside bench_ir_region only (make bench-ir). Loops in PORTABLE_LOOPS run again with
# the portable property access (STATEFULCONTROLS_PORTABLE=1).
#
# usage: scripts/bench-ir.sh BINARY ITERATIONS "LOOPS" "PORTABLE_LOOPS"
set -euo pipefail
binary=$1 iterations=$2 loops=$3 portable_loops=$4
out=$(dirname "$binary")

count() {  # count LABEL LOOP [ENVIRONMENT...]
  local label=$1 loop=$2 file="$out/callgrind.$1.out" n
  shift 2
  n=$(env "$@" SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --toggle-collect=bench_ir_region \
        --callgrind-out-file="$file" "$binary" --ir-loop "$loop" --iterations "$iterations" 2>/dev/null \
      | awk '/^iterations:/ {print $2}')
  [ -n "$n" ] || { echo "bench-ir: $loop did not run" >&2; exit 1; }
  awk -v label="$label" -v n="$n" '/^summary:/ {printf "  %-40s %14.1f  (%d iterations)\n", label, $2 / n, n}' "$file"
}

echo "instructions per iteration, counted inside bench_ir_region only:"
for loop in $loops; do count "$loop" "$loop"; done
for loop in $portable_loops; do count "$loop (portable)" "$loop" STATEFULCONTROLS_PORTABLE=1; done
