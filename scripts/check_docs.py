#!/usr/bin/env python3
"""Checks that the user-facing documents stay readable (DESIGN.md, "Writing for readers").

  - README.md has at most 200 lines;
  - no paragraph of BENCHMARKS.md is over 120 words (a paragraph: a run of prose lines, or one
    list item; tables, code blocks and headings are not paragraphs);
  - BENCHMARKS.md's summary table starts within its first 40 lines, under a "## Summary" heading;
  - neither README.md nor BENCHMARKS.md names a run by its clock time ("09:30", "09:30 UTC",
    "T09:30:00Z"): history, with its run names, belongs in docs/benchmark-history.md.

Usage: python3 scripts/check_docs.py [ROOT]   (ROOT: the repository, by default this script's
parent's parent). Prints each problem with its file and line; exits 1 if there is one.
"""

import re
import sys
from pathlib import Path

README_MAX_LINES = 200
PARAGRAPH_MAX_WORDS = 120
SUMMARY_WITHIN_LINES = 40
# A time of day: two-digit hours and minutes, optionally seconds, not part of a longer number
# (so "127.0.0.1:8080" and "1:1" are not times).
CLOCK_TIME = re.compile(r"(?<![\d:.])([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?(?![\d])")
LIST_ITEM = re.compile(r"^\s*([-*+]|\d+[.)])\s+")


def paragraphs(text):
    """Yields (first line number, words) for each paragraph of markdown text."""
    current, start, in_code = [], 0, False

    def flush():
        if current:
            yield start, len(" ".join(current).split())

    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("```") or stripped.startswith("~~~"):
            yield from flush()
            current = []
            in_code = not in_code
            continue
        if in_code:
            continue
        if not stripped or stripped.startswith("|") or stripped.startswith("#") or stripped.startswith("!["):
            yield from flush()
            current = []
            continue
        if LIST_ITEM.match(line):
            yield from flush()
            current, start = [stripped], number
            continue
        if not current:
            start = number
        current.append(stripped)
    yield from flush()


def clock_times(text):
    """Yields (line number, match) for every time of day outside code blocks and link targets."""
    in_code = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        for match in CLOCK_TIME.finditer(re.sub(r"\]\([^)]*\)", "]()", line)):
            yield number, match.group(0)


def check(root):
    problems = []
    readme_path, benchmarks_path = root / "README.md", root / "BENCHMARKS.md"
    readme = readme_path.read_text(encoding="utf-8")
    benchmarks = benchmarks_path.read_text(encoding="utf-8")

    lines = len(readme.splitlines())
    if lines > README_MAX_LINES:
        problems.append(f"README.md: {lines} lines, more than {README_MAX_LINES}")

    for start, words in paragraphs(benchmarks):
        if words > PARAGRAPH_MAX_WORDS:
            problems.append(
                f"BENCHMARKS.md:{start}: a paragraph of {words} words, more than {PARAGRAPH_MAX_WORDS}: "
                "split it, or make it a table or a list")

    summary_lines = benchmarks.splitlines()
    heading = next((n for n, line in enumerate(summary_lines, 1) if line.strip().lower() == "## summary"), None)
    table = None
    if heading is not None:
        table = next((n for n, line in enumerate(summary_lines, 1) if n > heading and line.startswith("|")), None)
    if heading is None or table is None:
        problems.append("BENCHMARKS.md: no summary table (a table under a \"## Summary\" heading)")
    elif table > SUMMARY_WITHIN_LINES:
        problems.append(
            f"BENCHMARKS.md:{table}: the summary table starts after line {SUMMARY_WITHIN_LINES}")

    for name, text in (("README.md", readme), ("BENCHMARKS.md", benchmarks)):
        for number, time in clock_times(text):
            problems.append(
                f"{name}:{number}: a clock time, {time}: name a run by its date or its commit; "
                "history goes to docs/benchmark-history.md")
    return problems


def main(argv):
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent
    problems = check(root)
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print("docs: README.md, BENCHMARKS.md: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
