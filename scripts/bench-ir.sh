#!/usr/bin/env bash
# Instructions per iteration of resolver-bench's --ir-loop loops under valgrind callgrind,
# counted inside bench_ir_region only (make bench-ir). Loops in PORTABLE_LOOPS run again with
# the portable property access (STATEFULCONTROLS_PORTABLE=1).
#
# A loop of LOOPS named …-R is counted at each rule count of the resolve scenario, which the
# binary lists (--list-rule-counts): the by-slot goals hold at every one (warm-resolve-slot-R over
# android-R and over precomputed-R).
#
# Beside the text it prints (and bench-ir.txt), it writes bench-ir.tsv next to BINARY for
# scripts/bench-charts.py, tab-separated, one record a line, its kind first:
#   run    DATE (UTC, ISO 8601)  ITERATIONS
#   count  LABEL  INSTRUCTIONS_PER_ITERATION  ITERATIONS  HEAP_ALLOCATIONS_PER_ITERATION
#   goal   NAME   LOOP  REFERENCE_LOOP  AT_MOST      (LOOP's count ÷ REFERENCE_LOOP's, at most AT_MOST)
#   floor  GOAL   LOOP  WHAT                         (the plain-Swift floor of the goal named GOAL)
# so that the charts take the goals from here rather than keep a second copy of them.
#
# usage: scripts/bench-ir.sh BINARY ITERATIONS "LOOPS" "PORTABLE_LOOPS"
set -euo pipefail
binary=$1 iterations=$2 loops=$3 portable_loops=$4
out=$(dirname "$binary")
rule_counts=$("$binary" --list-rule-counts)
[ -n "$rule_counts" ] || { echo "bench-ir: $binary listed no rule counts" >&2; exit 1; }
each_count() {  # each_count LOOPS: LOOPS with each …-R loop once per rule count
  local loop r
  for loop in $1; do
    case $loop in
      *-R) for r in $rule_counts; do echo "${loop%-R}-$r"; done ;;
      *) echo "$loop" ;;
    esac
  done
}

# The dynamic symbols are bound at start-up (LD_BIND_NOW): the linker's lazy binding, about 900
# instructions a run that move with the binary's layout, stays out of the loops.
count() {  # count LABEL LOOP [ENVIRONMENT...]
  local label=$1 loop=$2 file="$out/callgrind.$1.out" n
  shift 2
  n=$(env "$@" LD_BIND_NOW=1 SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --toggle-collect=bench_ir_region \
        --callgrind-out-file="$file" "$binary" --ir-loop "$loop" --iterations "$iterations" 2>/dev/null \
      | awk -v mallocs="$out/mallocs.$label" '/^heap allocations:/ {print $3 > mallocs} /^iterations:/ {print $2}')
  [ -n "$n" ] || { echo "bench-ir: $loop did not run" >&2; exit 1; }
  awk -v label="$label" -v n="$n" '/^summary:/ {printf "  %-40s %14.1f  (%d iterations)\n", label, $2 / n, n}' "$file" | tee -a "$out/bench-ir.txt"
  awk -v label="$label" -v n="$n" -v mallocs="$(cat "$out/mallocs.$label" 2>/dev/null)" \
    '/^summary:/ {printf "count\t%s\t%.1f\t%d\t%s\n", label, $2 / n, n, mallocs == "" ? "" : sprintf("%.2f", mallocs / n)}' "$file" >>"$out/bench-ir.tsv"
}

# goal NAME LOOP REFERENCE_LOOP AT_MOST: LOOP's count over REFERENCE_LOOP's, met when at most AT_MOST.
# A label with a suffix is named with it: "update-baseline-control (portable)".
goal() {
  printf 'goal\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$out/bench-ir.tsv"
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

# floor GOAL LOOP WHAT: the floor of the portable goal stated as GOAL (its reference loop and
# limit): LOOP, the same work in plain Swift with no library (resolver-bench's PortableFloor; WHAT
# says how it holds its targets: by weak references, or held with no liveness check), over the
# reference. No plain-Swift access can go below it: a goal under it is out of reach for the
# portable access.
floor() {
  local goal=$1 loop=$2 what=$3 reference limit
  read -r reference limit < <(awk -F'\t' -v name="$goal, portable access" '$1 == "goal" && $2 == name { r = $4; l = $5 }
    END { print r, l }' "$out/bench-ir.tsv")
  printf 'floor\t%s\t%s\t%s\n' "$goal" "$loop" "$what" >>"$out/bench-ir.tsv"
  awk -v loop="$loop" -v reference="$reference" -v limit="$limit" -v what="$what" -v mallocs="$(cat "$out/mallocs.$loop" 2>/dev/null)" '
    { label = $1; count = $2 }
    label == loop { value = count; gsub(/[(]/, "", $3); n = $3 } label == reference { base = count }
    END {
      if (value == "" || base == "") { printf "    plain-Swift floor, %s: not measured in this run\n", what; exit }
      ratio = value / base
      # Allocations a change, not the harness'"'"'s one or two a run.
      allocations = mallocs / n >= 0.5 ? sprintf(", %.2f heap allocations per iteration", mallocs / n) : ""
      printf "    plain-Swift floor, %s: %.2fx%s: %s\n", what, ratio, allocations,
        ratio <= limit && allocations == "" ? "under the goal" : "over the goal, out of reach for a plain-Swift access"
    }' "$out/bench-ir.txt"
}

# at_most NAME LOOP AT_MOST: LOOP's count itself, met when at most AT_MOST.
at_most() {
  awk -v name="$1" -v loop="$2" -v limit="$3" '
    { label = $1; count = $2 }
    $2 ~ /^\(/ { label = $1 " " $2; count = $3 }
    label == loop { value = count }
    END {
      if (value == "") { printf "  - %s: not measured in this run\n", name; exit }
      printf "  - %s: %.1f (goal <= %s) %s\n", name, value, limit, value <= limit ? "MET" : "MISSED"
    }' "$out/bench-ir.txt"
}

# mallocs NAME LABEL: heap allocations per iteration of the loop counted as LABEL (the process's,
# during the loop, by the benchmark's malloc counter), against the goal of none.
mallocs() {
  local name=$1 file="$out/mallocs.$2" n
  n=$(awk -v label="$2" '{ l = $1; c = $3 } $2 ~ /^\(/ { l = $1 " " $2; c = $4 } l == label { gsub(/[(]/, "", c); print c }' "$out/bench-ir.txt")
  [ -n "$n" ] && [ -f "$file" ] || { echo "  - $name: not measured in this run"; return; }
  awk -v name="$name" -v n="$n" '{ value = $1 / n }
    END { printf "  - %s: %.2f heap allocations per iteration (goal 0) %s\n", name, value, value < 0.005 ? "MET" : "MISSED" }' "$file"
}

# goal_at_every NAME LOOP REFERENCE AT_MOST "COUNTS": goal for LOOP-R over REFERENCE-R at each rule
# count R of COUNTS (warm-resolve-slot-1 over android-1, …): each ratio, and met when the worst is
# at most AT_MOST.
goal_at_every() {
  awk -v name="$1" -v loop="$2" -v reference="$3" -v limit="$4" -v counts="$5" '
    { value[$1] = $2 }
    END {
      n = split(counts, r, " ")
      for (i = 1; i <= n; i++) {
        a = value[loop "-" r[i]]; b = value[reference "-" r[i]]
        if (a == "" || b == "") { printf "  - %s: R=%s not measured in this run\n", name, r[i]; exit }
        ratio = a / b
        each = each sprintf("%sR=%s %.2fx", i > 1 ? ", " : "", r[i], ratio)
        if (i == 1 || ratio > worst) { worst = ratio; at = r[i] }
      }
      printf "  - %s, worst of R=%s: %.2fx at R=%s (goal <= %sx) %s\n    (%s)\n", name, r[1] "..." r[n], worst, at, limit,
        worst <= limit ? "MET" : "MISSED", each
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

rm -f "$out/bench-ir.txt" "$out/mallocs."*
printf 'run\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$iterations" >"$out/bench-ir.tsv"
echo "instructions per iteration, counted inside bench_ir_region only:"
for loop in $(each_count "$loops"); do count "$loop" "$loop"; done
for loop in $portable_loops; do count "$loop (portable)" "$loop" STATEFULCONTROLS_PORTABLE=1; done

echo "Goals (instructions, this run):"
# Each end-to-end goal for the direct access, then for the portable access.
both() {  # both NAME LOOP REFERENCE DIRECT_AT_MOST PORTABLE_AT_MOST
  goal "$1" "$2" "$3" "$4"
  goal "$1, portable access" "$2 (portable)" "$3" "$5"
}
both "button state change / hand-written" update-baseline-control update-baseline-hand 1.8 2.0
both "form field flip / hand-written" form-control form-hand 10 10
# The portable goals below, each with its floor: the same work in plain Swift, no library.
weak="weak references" held="targets held"
both "1,000 bindings, 100 % change / hand-written" bindings-1000-100pct-control bindings-1000-100pct-hand 3.2 4
floor "1,000 bindings, 100 % change / hand-written" bindings-1000-100pct-floor "$weak"
floor "1,000 bindings, 100 % change / hand-written" bindings-1000-100pct-held-floor "$held"
both "1,000 bindings, 1 % change / hand-written full update" bindings-1000-1pct-control bindings-1000-1pct-hand 0.05 0.06
floor "1,000 bindings, 1 % change / hand-written full update" bindings-1000-1pct-floor "$weak"
both "1,000 bindings, key paths from a table, 100 % change / hand-written" bindings-1000-100pct-table-control bindings-1000-100pct-hand 3.2 6
mallocs "1,000 bindings, key paths from a table, 100 % change, portable access" "bindings-1000-100pct-table-control (portable)"
floor "1,000 bindings, key paths from a table, 100 % change / hand-written" bindings-1000-100pct-table-floor "$weak"
mallocs "PIN dot bound to closures of the state, warm" dot-closure-control
goal "button bound as lists / the same rules one by one" button-list-control button-rules-control 1.02
goal "PIN dot bound as lists / the same rules one by one" dot-list-control dot-rules-control 1.02
at_most "bind, instructions" bind-control 3900
at_most "bind, portable access, instructions" "bind-control (portable)" 4000
goal_at_every "warm resolve by slot / android first match" warm-resolve-slot android 1.0 "$rule_counts"
goal_at_every "warm resolve by slot / precomputed table" warm-resolve-slot precomputed 2.0 "$rule_counts"
observation update-baseline-control
observation form-control
