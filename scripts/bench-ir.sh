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
  awk -v label="$label" -v n="$n" '/^summary:/ {printf "  %-40s %14.1f  (%d iterations)\n", label, $2 / n, n}' "$file" | tee -a "$out/bench-ir.txt"
}

# goal NAME LOOP REFERENCE_LOOP AT_MOST: LOOP's count over REFERENCE_LOOP's, met when at most AT_MOST.
# A label with a suffix is named with it: "update-baseline-control (portable)".
goal() {
  awk -v name="$1" -v loop="$2" -v reference="$3" -v limit="$4" '
    { label = $1; count = $2 }
    $2 ~ /^\(/ { label = $1 " " $2; count = $3 }
    label == loop { value = count } label == reference { base = count }
    END {
      if (value == "" || base == "") { printf "  - %s: not measured in this run\n", name; exit }
      ratio = value / base
      printf "  - %s: %.2fx (goal <= %sx) %s\n", name, ratio, limit, ratio <= limit ? "MET" : "MISSED"
    }' "$out/bench-ir.txt"
}

# observation LOOP: the instructions per iteration of LOOP spent in the Observation module (every
# call into libswiftObservation from outside it, inclusive), against the goal of at most 20 per
# factor change when nothing observes (the loops change one factor per iteration, unobserved).
# Every function is listed (--threshold=100): a small cost must not hide under the default 99 %.
observation() {
  local loop=$1 file="$out/callgrind.$1.out" n
  n=$(awk -v loop="$loop" '$1 == loop && $2 !~ /^\(/ { gsub(/[(]/, "", $3); print $3 }' "$out/bench-ir.txt")
  [ -n "$n" ] || { echo "  - Observation in $loop: not measured in this run"; return; }
  callgrind_annotate --tree=caller --inclusive=yes --threshold=100 "$file" 2>/dev/null | awk -v loop="$loop" -v n="$n" '
    /^$/ { callers = 0; next }
    /^ *[0-9,]+ +\([ 0-9.]+%\) +< / { caller[++callers] = $0; next }
    /^ *[0-9,]+ +\([ 0-9.]+%\) +\* / {
      if ($0 ~ /libswiftObservation/)
        for (i = 1; i <= callers; i++)
          if (caller[i] !~ /libswiftObservation/) { c = caller[i]; sub(/^ */, "", c); split(c, f, " "); gsub(",", "", f[1]); total += f[1] }
      callers = 0
    }
    END {
      value = total / n
      printf "  - Observation in %s, nothing observing: %.1f instructions per factor change (goal <= 20) %s\n", loop, value, value <= 20 ? "MET" : "MISSED"
    }'
}

rm -f "$out/bench-ir.txt"
echo "instructions per iteration, counted inside bench_ir_region only:"
for loop in $loops; do count "$loop" "$loop"; done
for loop in $portable_loops; do count "$loop (portable)" "$loop" STATEFULCONTROLS_PORTABLE=1; done

echo "Goals (instructions, this run):"
goal "button state change / hand-written" update-baseline-control update-baseline-hand 1.0
goal "button state change, portable access / hand-written" "update-baseline-control (portable)" update-baseline-hand 3.0
goal "form field flip / hand-written" form-control form-hand 1.5
goal "warm resolve by slot / android first match, R=16" warm-resolve-slot-16 android-16 1.0
goal "warm resolve by slot / precomputed table, R=16" warm-resolve-slot-16 precomputed-16 2.0
observation update-baseline-control
observation form-control
