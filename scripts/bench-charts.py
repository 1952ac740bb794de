#!/usr/bin/env python3
"""SVG charts of one make bench run and one make bench-ir run, Python 3 standard library only.

usage: scripts/bench-charts.py BENCH_JSON OUTPUT_DIR [--instructions BENCH_IR_TSV] [--require-all]

Reads the JSON that `resolver-bench --json` writes (make bench) and the TSV that
scripts/bench-ir.sh writes (make bench-ir), and writes into OUTPUT_DIR:

- resolve.svg: ns per lookup (median) against the rule count, every implementation of the
  `resolve` scenario, log-log, with the wall-time goals at 16 rules (benchcharts/resolve.py);
- end-to-end.svg: instructions through Control ÷ instructions of the hand-written code, for
  each goal bench-ir.sh states against a hand-written loop, both property accesses, the goal
  marked on each bar, make bench's wall-time ratio beside it (benchcharts/end_to_end.py);
- memory.svg: the `memory` scenario as a table, each figure beside its goal (benchcharts/memory.py).

A chart whose data the runs do not have is skipped with a message on stderr (exit status 0, or 1
with --require-all, which the refresh of the committed charts uses): nothing is drawn that was
not measured. Every chart names the runs it comes from: date, mode, machine.

Hand-written SVG rather than a plotting library (matplotlib): make bench and make lint then need
nothing but python3, offline; the output is deterministic and small, so a refreshed chart's diff
shows what changed; and its text stays text, which the tests (scripts/test_bench_charts.py) read
back to check labels, bars and goals.
"""

import argparse
import os
import sys

from benchcharts.end_to_end import end_to_end_chart
from benchcharts.memory import memory_chart
from benchcharts.resolve import resolve_chart
from benchcharts.run import InstructionRun, Run


def charts(run, instructions):
    """(file name, svg or None, why not) of each chart."""
    return [
        ("resolve.svg", *resolve_chart(run)),
        ("end-to-end.svg", *end_to_end_chart(run, instructions)),
        ("memory.svg", *memory_chart(run)),
    ]


def main(arguments):
    """Writes every chart the runs have data for; the others are skipped with a message."""
    parser = argparse.ArgumentParser(prog="scripts/bench-charts.py", description="SVG charts of make bench and make bench-ir")
    parser.add_argument("bench_json")
    parser.add_argument("output_dir")
    parser.add_argument("--instructions", metavar="BENCH_IR_TSV", help="make bench-ir's counts (.build/bench-ir.tsv)")
    parser.add_argument("--require-all", action="store_true", help="fail when a chart cannot be drawn")
    options = parser.parse_args(arguments)
    try:
        run = Run(options.bench_json)
    except (OSError, ValueError) as error:
        print(f"bench-charts: cannot read {options.bench_json}: {error}", file=sys.stderr)
        return 1
    instructions = None
    if options.instructions:
        try:
            instructions = InstructionRun(options.instructions)
        except OSError as error:
            print(f"bench-charts: no instruction counts: {error}", file=sys.stderr)
    os.makedirs(options.output_dir, exist_ok=True)
    skipped = 0
    for name, svg, missing in charts(run, instructions):
        if svg is None:
            print(f"bench-charts: {name} skipped: {missing}", file=sys.stderr)
            skipped += 1
            continue
        path = os.path.join(options.output_dir, name)
        with open(path, "w", encoding="utf-8") as file:
            file.write(svg)
        print(f"bench-charts: wrote {path}")
    return 1 if skipped and options.require_all else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
