#!/usr/bin/env bash
# Line coverage of the C resolver by the fuzz corpus, the regressions, a fixed number of fresh
# fuzz runs from a fixed seed, and the C drivers (leak, unit, allocation failure); fails below
# COVERAGE_MIN percent (make coverage).
#
# usage: CLANG=... LLVM_PROFDATA=... LLVM_COV=... CHECK_FLAGS="..." FAULT_FLAGS="..." \
#        RESOLVER_C="units to compile" RESOLVER_SOURCES="files to report" \
#        C_UNIT=... C_FAULT="..." COVERAGE_MIN=95 FUZZ_RUNS=30000 scripts/coverage.sh
set -euo pipefail
out=.build/coverage
flags="$CHECK_FLAGS -g -O0 -fprofile-instr-generate -fcoverage-mapping"
rm -rf "$out" && mkdir -p "$out/profiles" "$out/corpus" .build/fuzz-corpus

# shellcheck disable=SC2086 # the flag and file lists are word lists
{
  "$CLANG" $flags -fsanitize=fuzzer -fuse-ld=lld $RESOLVER_C Tests/CResolverChecks/fuzz_resolver.c -lJudy -o "$out/fuzz-resolver"
  "$CLANG" $flags $RESOLVER_C Tests/CResolverChecks/leak_driver.c -lJudy -o "$out/leak-driver"
  "$CLANG" $flags $C_UNIT -lJudy -o "$out/unit-resolver"
  "$CLANG" $flags $FAULT_FLAGS $C_FAULT -lJudy -o "$out/fault-driver"
}

LLVM_PROFILE_FILE=$out/profiles/fuzz-corpus.profraw "$out/fuzz-resolver" -runs=0 .build/fuzz-corpus Tests/CResolverChecks/regressions
LLVM_PROFILE_FILE=$out/profiles/fuzz-runs.profraw "$out/fuzz-resolver" -runs="$FUZZ_RUNS" -seed=1 \
  "$out/corpus" Tests/CResolverChecks/regressions > "$out/fuzz-runs.log" 2>&1 || { tail -40 "$out/fuzz-runs.log"; exit 1; }
LLVM_PROFILE_FILE=$out/profiles/leak.profraw "$out/leak-driver"
LLVM_PROFILE_FILE=$out/profiles/unit.profraw "$out/unit-resolver"
LLVM_PROFILE_FILE=$out/profiles/fault.profraw "$out/fault-driver"

"$LLVM_PROFDATA" merge -sparse "$out"/profiles/*.profraw -o "$out/resolver.profdata"
objects=("$out/fuzz-resolver" -object "$out/leak-driver" -object "$out/unit-resolver" -object "$out/fault-driver"
         -instr-profile="$out/resolver.profdata")
# shellcheck disable=SC2086
"$LLVM_COV" report "${objects[@]}" $RESOLVER_SOURCES | tee "$out/report.txt"
# shellcheck disable=SC2086
"$LLVM_COV" show "${objects[@]}" $RESOLVER_SOURCES > "$out/resolver.txt"
awk -v min="$COVERAGE_MIN" -v uncovered="$out/resolver.txt" '/^TOTAL/ { lines = $10; sub(/%/, "", lines); found = 1;
  printf "C resolver line coverage: %s %% (minimum %s %%; uncovered lines: %s)\n", lines, min, uncovered;
  exit (lines + 0 < min) } END { if (!found) exit 1 }' "$out/report.txt"
