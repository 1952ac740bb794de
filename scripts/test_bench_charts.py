#!/usr/bin/env python3
"""Tests of scripts/bench-charts.py on tiny bench JSON and bench-ir TSV files (unittest, standard
library only).

usage: python3 scripts/test_bench_charts.py
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
import xml.dom.minidom

SCRIPTS = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(SCRIPTS, "bench-charts.py")
sys.path.insert(0, SCRIPTS)
from benchcharts.svg import LogScale  # noqa: E402

MACHINE = {"cpu": "Test CPU 9000", "cores": 3, "os": "Plan 9 from Bell Labs", "judy": "libJudy 1.0.5", "build": "release"}
RULES = [1, 2, 4, 8, 16, 32, 64, 128, 256]
BUTTON = {"bound_values": 6, "cycle": "8 factor changes", "factors": 3}
THOUSAND = {"bindings": 1000, "changing_percent": 100}


def row(scenario, implementation, params, median, **fields):
    """A result as resolver-bench writes it."""
    return {"scenario": scenario, "implementation": implementation, "params": params,
            "ns_per_op_median": median, "ns_per_op_p99": median * 1.1, "ops_per_sec": 1e9 / median, **fields}


def resolve_rows():
    """Three implementations of the resolve scenario at every power of 2 from 1 to 256 rules."""
    rows = [row("resolve", "resolver (warm)", {"rules": r}, 8.0) for r in RULES]
    rows += [row("resolve", "resolver (cold)", {"rules": r}, 20.0) for r in RULES]
    return rows + [row("resolve", "original (filter + max)", {"rules": r}, 10.0 * r) for r in RULES]


def end_to_end_rows():
    """make bench's end-to-end rows: the button, and the 1,000 bindings reported twice (per state
    change and per value written), as resolver-bench reports them."""
    rows = [
        row("update-baseline", "Control (setValue bindings)", BUTTON, 60.0, ratio_to_hand_written=6.0),
        row("update-baseline", "hand-written (changed only)", BUTTON, 10.0, ratio_to_hand_written=1.0),
        row("update-baseline", "Control (setValue bindings) (portable access)", BUTTON, 90.0, ratio_to_hand_written=9.0),
    ]
    for op, scale in (("state change", 1000.0), ("value written", 1.0)):
        params = {**THOUSAND, "op": op}
        rows += [
            row("bindings-1000", "Control (isSelected toggle)", params, 20 * scale, ratio_to_hand_written=20.0),
            row("bindings-1000", "hand-written (changed only) (isSelected toggle)", params, scale, ratio_to_hand_written=1.0),
            row("bindings-1000", "Control (isSelected toggle) (portable access)", params, 56.8 * scale, ratio_to_hand_written=56.8),
        ]
    return rows


def memory_rows(bytes_at_million=188.7):
    """The memory scenario's rows at 1K, 100K and 1M bindings, and the controls' row."""
    rows = []
    for count, resident in ((1000, 65.5), (100_000, 192.0), (1_000_000, bytes_at_million)):
        params = {"bindings": count, "rules_per_binding": 1}
        note = f"one pass; bytes/binding = resident set growth ({resident} B; malloc heap growth 189.4 B)"
        rows.append(row("memory", "Control.setValue, one control (bind)", params, 300.0, bytes_per_binding=resident, note=note))
        rows.append(row("memory", "Control.removeAllValues()", params, count * 150.0))
    params = {"bindings_per_control": 2, "controls": 100_000}
    return rows + [row("memory", "Control() with 2 bindings (create and bind)", params, 2200.0, bytes_per_control=915.0)]


# bench-ir.sh's TSV: the run, the loops counted, and goals against hand-written loops and one
# against another loop (not a hand-written one: not in the chart). The button's goal is listed
# twice: it is still one bar.
IR_TSV = """run\t2026-11-25T10:00:00Z\t20000
count\tupdate-baseline-control\t1200.0\t20000\t0.00
count\tupdate-baseline-hand\t480.0\t20000\t0.00
count\tupdate-baseline-control (portable)\t1920.0\t20000\t0.00
count\tbindings-1000-100pct-control\t130000.0\t21\t0.00
count\tbindings-1000-100pct-hand\t20000.0\t21\t0.00
count\tbindings-1000-100pct-control (portable)\t2076000.0\t21\t1001.38
goal\tbutton state change / hand-written\tupdate-baseline-control\tupdate-baseline-hand\t1.8
goal\tbutton state change / hand-written\tupdate-baseline-control\tupdate-baseline-hand\t1.8
goal\tbutton state change / hand-written, portable access\tupdate-baseline-control (portable)\tupdate-baseline-hand\t5
goal\t1,000 bindings, 100 % change / hand-written\tbindings-1000-100pct-control\tbindings-1000-100pct-hand\t3.2
goal\t1,000 bindings, 100 % change / hand-written, portable access\tbindings-1000-100pct-control (portable)\tbindings-1000-100pct-hand\t4
goal\tbutton bound as lists / the same rules one by one\tbutton-list-control\tbutton-rules-control\t1.02
"""


def elements(path, tag):
    """The elements of one tag in an SVG file (parsing it, so it must be valid XML)."""
    return xml.dom.minidom.parse(path).getElementsByTagName(tag)


def texts(path):
    """(class, x, content) of every <text> element of an SVG file."""
    return [(node.getAttribute("class"), float(node.getAttribute("x")), "".join(c.data for c in node.childNodes))
            for node in elements(path, "text")]


class BenchChartsTest(unittest.TestCase):
    """The generator run as make bench runs it, on files written here."""

    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.output = os.path.join(self.directory.name, "charts")

    def tearDown(self):
        self.directory.cleanup()

    def generate(self, results, instructions=None, options=(), **document):
        """Writes a bench JSON (and a bench-ir TSV), runs the script on them; returns (exit status, stderr)."""
        source = os.path.join(self.directory.name, "bench.json")
        document = {"machine": MACHINE, "access": "direct", "mode": "full", "results": results, **document}
        with open(source, "w", encoding="utf-8") as file:
            json.dump(document, file)
        os.utime(source, (1_000_000_000, 1_000_000_000))  # 2001-09-09 01:46:40 UTC
        arguments = [sys.executable, SCRIPT, source, self.output, *options]
        if instructions is not None:
            tsv = os.path.join(self.directory.name, "bench-ir.tsv")
            with open(tsv, "w", encoding="utf-8") as file:
                file.write(instructions)
            arguments += ["--instructions", tsv]
        done = subprocess.run(arguments, capture_output=True, text=True)
        return done.returncode, done.stderr

    def path(self, name):
        path = os.path.join(self.output, name)
        self.assertTrue(os.path.exists(path), f"{name} not written")
        return path

    def content(self, name):
        """Every text of the chart, joined."""
        return " | ".join(text for _, _, text in texts(self.path(name)))

    def of_class(self, name, css_class, tag="text"):
        """The texts (or, for another tag, the elements) of one class."""
        if tag == "text":
            return [text for c, _, text in texts(self.path(name)) if c == css_class]
        return [e for e in elements(self.path(name), tag) if e.getAttribute("class") == css_class]

    def test_every_chart_written_valid_and_labelled(self):
        status, stderr = self.generate(resolve_rows() + end_to_end_rows() + memory_rows(), IR_TSV, date="2026-11-24")
        self.assertEqual((status, stderr), (0, ""))
        expected = {
            "resolve.svg": ["resolver (warm)", "original (filter + max)", "time per lookup, ns (median, log scale)", "(log₂ scale)"],
            "end-to-end.svg": ["button state change ÷ hand-written", "portable access", "instructions", "2026-11-25T10:00:00Z"],
            "memory.svg": ["bytes per binding, one control (resident set)", "1,000,000 bindings", "189 B (heap 189 B)"],
        }
        for name, strings in expected.items():
            content = self.content(name)
            for string in strings + ["Test CPU 9000, 3 cores, Plan 9 from Bell Labs, release build", "2026-11-24 (its date field)"]:
                self.assertIn(string, content, name)

    def test_no_label_is_a_raw_json_key(self):
        self.generate(resolve_rows() + end_to_end_rows() + memory_rows(), IR_TSV)
        for name in ("resolve.svg", "end-to-end.svg", "memory.svg"):
            for css_class, _, text in texts(self.path(name)):
                self.assertIsNone(re.search(r"=|\w_\w", text), f"{name}, {css_class}: {text!r}")

    def test_each_end_to_end_bar_once_at_its_instruction_ratio(self):
        self.generate(end_to_end_rows(), IR_TSV)
        # The button's goal listed twice and the 1,000 bindings reported twice by make bench:
        # two groups of two bars; the goal against another loop than a hand-written one is left out.
        self.assertEqual(self.of_class("end-to-end.svg", "group"),
                         ["button state change ÷ hand-written", "1,000 bindings, 100 % change ÷ hand-written"])
        self.assertEqual(self.of_class("end-to-end.svg", "bar-label"), ["direct access", "portable access"] * 2)
        self.assertEqual(len(self.of_class("end-to-end.svg", "bar", tag="rect")), 4)
        # Instructions, not wall time: 1200 / 480, 1920 / 480, 130000 / 20000, 2076000 / 20000.
        self.assertEqual(self.of_class("end-to-end.svg", "value"), ["2.50×", "4.00×", "6.50×", "104×"])
        self.assertEqual(self.of_class("end-to-end.svg", "wall"), ["6.00× wall", "9.00× wall", "20.0× wall", "56.8× wall"])
        self.assertIn("wall time", self.of_class("end-to-end.svg", "column"))

    def test_floors_follow_their_portable_goal(self):
        floors = IR_TSV + (
            "count\tbindings-1000-100pct-floor\t230000.0\t21\t0.05\n"
            "count\tbindings-1000-100pct-held-floor\t60000.0\t21\t0.05\n"
            "floor\t1,000 bindings, 100 % change / hand-written\tbindings-1000-100pct-floor\tweak references\n"
            "floor\t1,000 bindings, 100 % change / hand-written\tbindings-1000-100pct-held-floor\ttargets held\n"
            "floor\tno such goal\tbindings-1000-100pct-floor\tweak references\n")
        self.generate(end_to_end_rows(), floors)
        self.assertEqual(self.of_class("end-to-end.svg", "bar-label"),
                         ["direct access", "portable access"] * 2 + ["floor, weak references", "floor, targets held"])
        self.assertEqual(self.of_class("end-to-end.svg", "value")[4:], ["11.5×", "3.00×"])
        # Against the portable goal (≤ 4×): over it, out of reach; under it, no verdict.
        self.assertEqual(self.of_class("end-to-end.svg", "goal-value")[4:], ["≤ 4×: out of reach", "≤ 4×"])
        self.assertEqual(len(self.of_class("end-to-end.svg", "wall")), 4)

    def test_every_end_to_end_bar_has_its_goal(self):
        self.generate(end_to_end_rows(), IR_TSV)
        self.assertEqual(len(self.of_class("end-to-end.svg", "goal", tag="line")), 4)
        self.assertEqual(self.of_class("end-to-end.svg", "goal-value"), ["≤ 1.8×, missed", "≤ 5×, met", "≤ 3.2×, missed", "≤ 4×, missed"])

    def test_a_goal_whose_loop_was_not_counted_has_no_bar(self):
        self.generate(end_to_end_rows(), IR_TSV.replace("count\tupdate-baseline-control (portable)", "# not counted"))
        self.assertEqual(len(self.of_class("end-to-end.svg", "bar", tag="rect")), 3)
        self.assertEqual(self.of_class("end-to-end.svg", "value")[1], "not counted")
        self.assertEqual(len(self.of_class("end-to-end.svg", "goal", tag="line")), 4)

    def test_resolve_goals_at_sixteen_rules(self):
        self.generate(resolve_rows())
        self.assertEqual(self.of_class("resolve.svg", "goal-label"), ["goal: warm ≤ original ÷ 20", "goal: cold ≤ original ÷ 5"])
        marks = self.of_class("resolve.svg", "goal", tag="line")
        self.assertEqual(len(marks), 2)
        # original at 16 rules is 160 ns: the warm goal (8 ns) lies lower on the chart than the cold one (32 ns).
        self.assertGreater(float(marks[0].getAttribute("y1")), float(marks[1].getAttribute("y1")))

    def test_memory_goals_checked_where_they_apply(self):
        self.generate(memory_rows(bytes_at_million=250.0))
        rows = list(zip(self.of_class("memory.svg", "measure"), self.of_class("memory.svg", "at"), self.of_class("memory.svg", "goal")))
        self.assertIn(("bytes per binding, one control (resident set)", "1,000 bindings", "(≤ 200 B at 1,000,000)"), rows)
        self.assertIn(("bytes per binding, one control (resident set)", "1,000,000 bindings", "≤ 200 B"), rows)
        self.assertIn(("a bind (setValue), time per call", "1,000,000 bindings", "≤ 1 µs"), rows)
        self.assertIn(("removeAllValues(), the whole call", "1,000,000 bindings", "≤ 0.3 s"), rows)
        self.assertIn(("bytes per control (2 bindings), bound", "100,000 controls", "≤ 1,024 B"), rows)
        # 250 B per binding misses; the bind (300 ns), the removal (0.15 s) and 915 B per control meet.
        self.assertEqual(self.of_class("memory.svg", "verdict"), ["missed", "met", "met", "met"])

    def test_date_from_the_file_when_the_json_has_none(self):
        self.generate(resolve_rows())
        self.assertIn("run of 2001-09-09 01:46 UTC (the file's modification time: the file has no date)", self.content("resolve.svg"))

    def test_a_quick_run_says_so(self):
        self.generate(resolve_rows(), mode="quick")
        self.assertIn("quick mode", self.content("resolve.svg"))

    def test_log2_axis_places_powers_of_two_at_equal_spacing(self):
        self.generate(resolve_rows())
        ticks = [(label, x) for css_class, x, label in texts(self.path("resolve.svg")) if css_class == "x-tick"]
        self.assertEqual([label for label, _ in ticks], [str(r) for r in RULES])
        gaps = [b[1] - a[1] for a, b in zip(ticks, ticks[1:])]
        self.assertTrue(all(abs(gap - gaps[0]) < 0.15 for gap in gaps), gaps)
        self.assertGreater(gaps[0], 50)

    def test_log10_scale_places_decades_at_equal_spacing(self):
        scale = LogScale(3, 4000, 0, 300, 10)
        self.assertEqual((scale.lo, scale.hi), (2, 5000))
        positions = [scale(v) for v in (10, 100, 1000)]
        self.assertAlmostEqual(positions[1] - positions[0], positions[2] - positions[1])
        self.assertEqual((scale(2), scale(5000)), (0, 300))

    def test_missing_data_skips_the_chart_and_require_all_fails(self):
        status, stderr = self.generate(resolve_rows())
        self.assertEqual(status, 0)
        self.assertTrue(os.path.exists(os.path.join(self.output, "resolve.svg")))
        for name in ("end-to-end.svg", "memory.svg"):
            self.assertFalse(os.path.exists(os.path.join(self.output, name)))
            self.assertIn(f"{name} skipped", stderr)
        self.assertIn("make bench-ir", stderr)
        status, _ = self.generate(resolve_rows(), options=["--require-all"])
        self.assertEqual(status, 1)

    def test_no_results_skips_every_chart(self):
        status, stderr = self.generate([])
        self.assertEqual(status, 0)
        self.assertEqual(stderr.count("skipped"), 3)
        self.assertEqual(os.listdir(self.output), [])

    def test_unreadable_json_is_an_error(self):
        source = os.path.join(self.directory.name, "broken.json")
        with open(source, "w", encoding="utf-8") as file:
            file.write("{ not json")
        done = subprocess.run([sys.executable, SCRIPT, source, self.output], capture_output=True, text=True)
        self.assertEqual(done.returncode, 1)
        self.assertIn("cannot read", done.stderr)

    def test_make_bench_leaves_the_committed_charts_alone(self):
        root = os.path.dirname(SCRIPTS)
        done = subprocess.run(["make", "-n", "-C", root, "bench", "SWIFT=swift"], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        drawn = [line for line in done.stdout.splitlines() if "bench-charts.py" in line]
        self.assertEqual(len(drawn), 1, done.stdout)
        self.assertNotIn("docs/bench", drawn[0])


if __name__ == "__main__":
    unittest.main()
