#!/usr/bin/env python3
"""Tests of scripts/bench-charts.py on tiny bench JSON files (unittest, standard library only).

usage: python3 scripts/test_bench_charts.py
"""

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.dom.minidom

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-charts.py")
spec = importlib.util.spec_from_file_location("bench_charts", SCRIPT)
bench_charts = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench_charts)

MACHINE = {"cpu": "Test CPU 9000", "cores": 3, "os": "Plan 9 from Bell Labs", "judy": "libJudy 1.0.5", "build": "release"}
RULES = [1, 2, 4, 8, 16, 32, 64, 128, 256]


def row(scenario, implementation, params, median, **fields):
    """A result as resolver-bench writes it."""
    return {"scenario": scenario, "implementation": implementation, "params": params,
            "ns_per_op_median": median, "ns_per_op_p99": median * 1.1, "ops_per_sec": 1e9 / median, **fields}


def resolve_rows():
    """Two implementations of the resolve scenario at every power of 2 from 1 to 256 rules."""
    rows = [row("resolve", "resolver (warm)", {"rules": r}, 8.0) for r in RULES]
    return rows + [row("resolve", "original (filter + max)", {"rules": r}, 10.0 * r) for r in RULES]


def ratio_rows():
    """End-to-end rows: the hand-written reference, Control, and Control with the portable access."""
    params = {"bindings": 1000, "op": "state change"}
    return [
        row("bindings-1000", "Control (isSelected toggle)", params, 60.0, ratio_to_hand_written=6.0),
        row("bindings-1000", "hand-written (changed only) (isSelected toggle)", params, 10.0, ratio_to_hand_written=1.0),
        row("bindings-1000", "Control (isSelected toggle) (portable access)", params, 3520.0, ratio_to_hand_written=352.0),
    ]


def memory_rows():
    """The memory scenario's rows (bytes_per_binding) at two binding counts."""
    return [row("memory", "StateResolver (Swift API)", {"bindings": b}, 100.0, bytes_per_binding=1234.0) for b in (1024, 65536)]


def insert_remove_rows():
    """The fallback: insert-remove rows with bytes_per_rule (and one without, which is not plotted)."""
    note = "one pass; bytes/rule = malloc heap growth"
    swift_api = "StateResolver.setValue (Swift API)"
    return [
        row("insert-remove", swift_api, {"bindings": 1024, "rules": 4096}, 1400.0, bytes_per_rule=309.5, note=note),
        row("insert-remove", swift_api, {"bindings": 65536, "rules": 262144}, 1600.0, bytes_per_rule=295.1, note=note),
        row("insert-remove", "csr_set replacing a value", {"bindings": 1024}, 50.0),
    ]


def texts(path):
    """(class, x, content) of every <text> element of an SVG file (parsing it, so it must be valid XML)."""
    document = xml.dom.minidom.parse(path)
    return [(node.getAttribute("class"), float(node.getAttribute("x")), "".join(c.data for c in node.childNodes))
            for node in document.getElementsByTagName("text")]


class BenchChartsTest(unittest.TestCase):
    """The generator run as make bench runs it, on JSON written here."""

    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.output = os.path.join(self.directory.name, "charts")

    def tearDown(self):
        self.directory.cleanup()

    def generate(self, results, **document):
        """Writes a bench JSON, runs the script on it; returns (exit status, stderr)."""
        source = os.path.join(self.directory.name, "bench.json")
        document = {"machine": MACHINE, "access": "direct", "mode": "full", "results": results, **document}
        with open(source, "w", encoding="utf-8") as file:
            json.dump(document, file)
        os.utime(source, (1_000_000_000, 1_000_000_000))  # 2001-09-09 01:46:40 UTC
        done = subprocess.run([sys.executable, SCRIPT, source, self.output], capture_output=True, text=True)
        return done.returncode, done.stderr

    def chart(self, name):
        """The chart's text elements; fails when the file is missing or not valid XML."""
        path = os.path.join(self.output, name)
        self.assertTrue(os.path.exists(path), f"{name} not written")
        return texts(path)

    def test_every_chart_written_valid_and_labelled(self):
        status, stderr = self.generate(resolve_rows() + ratio_rows() + memory_rows(), date="2026-11-24")
        self.assertEqual((status, stderr), (0, ""))
        expected = {
            "resolve.svg": ["resolver (warm)", "original (filter + max)", "time per lookup, ns (median, log scale)", "(log₂ scale)"],
            "end-to-end.svg": ["Control (isSelected toggle)", "(portable access)", "6.00×", "352×", "1.0× = hand-written"],
            "memory.svg": ["StateResolver (Swift API)", "memory per binding, bytes", "bindings (log₂ scale)", "1,234 B"],
        }
        for name, strings in expected.items():
            content = " | ".join(text for _, _, text in self.chart(name))
            for string in strings + ["Test CPU 9000, 3 cores, Plan 9 from Bell Labs, release build", "2026-11-24 (the JSON's date field)"]:
                self.assertIn(string, content, name)

    def test_date_from_the_file_when_the_json_has_none(self):
        self.generate(resolve_rows())
        content = " | ".join(text for _, _, text in self.chart("resolve.svg"))
        self.assertIn("Run of 2001-09-09 01:46 UTC (the JSON file's modification time: the JSON has no date)", content)

    def test_a_quick_run_says_so(self):
        self.generate(resolve_rows(), mode="quick")
        content = " | ".join(text for _, _, text in self.chart("resolve.svg"))
        self.assertIn("quick mode", content)

    def test_log2_axis_places_powers_of_two_at_equal_spacing(self):
        self.generate(resolve_rows())
        ticks = [(label, x) for css_class, x, label in self.chart("resolve.svg") if css_class == "x-tick"]
        self.assertEqual([label for label, _ in ticks], [str(r) for r in RULES])
        gaps = [b[1] - a[1] for a, b in zip(ticks, ticks[1:])]
        self.assertTrue(all(abs(gap - gaps[0]) < 0.15 for gap in gaps), gaps)
        self.assertGreater(gaps[0], 50)

    def test_log10_scale_places_decades_at_equal_spacing(self):
        scale = bench_charts.LogScale(3, 4000, 0, 300, 10)
        self.assertEqual((scale.lo, scale.hi), (2, 5000))
        positions = [scale(v) for v in (10, 100, 1000)]
        self.assertAlmostEqual(positions[1] - positions[0], positions[2] - positions[1])
        self.assertEqual((scale(2), scale(5000)), (0, 300))

    def test_the_reference_is_the_line_not_a_bar(self):
        self.generate(ratio_rows())
        labels = [text for css_class, _, text in self.chart("end-to-end.svg") if css_class == "bar-label"]
        self.assertEqual(labels, ["Control (isSelected toggle)", "Control (isSelected toggle) (portable access)"])

    def test_missing_data_skips_the_chart(self):
        status, stderr = self.generate(resolve_rows())
        self.assertEqual(status, 0)
        self.assertTrue(os.path.exists(os.path.join(self.output, "resolve.svg")))
        for name in ("end-to-end.svg", "memory.svg"):
            self.assertFalse(os.path.exists(os.path.join(self.output, name)))
            self.assertIn(f"{name} skipped", stderr)

    def test_no_results_skips_every_chart(self):
        status, stderr = self.generate([])
        self.assertEqual(status, 0)
        self.assertEqual(stderr.count("skipped"), 3)
        self.assertEqual(os.listdir(self.output), [])

    def test_memory_falls_back_to_bytes_per_rule_and_says_so(self):
        status, _ = self.generate(insert_remove_rows())
        self.assertEqual(status, 0)
        content = " | ".join(text for _, _, text in self.chart("memory.svg"))
        for string in ["Memory per rule", "memory per rule, bytes", "No memory scenario in this run", "4 rules per binding",
                       "310 B/rule", "295 B/rule", "StateResolver.setValue (Swift API)", "malloc heap growth"]:
            self.assertIn(string, content)
        self.assertNotIn("per binding,", content)
        self.assertNotIn("csr_set replacing a value", content)

    def test_unreadable_json_is_an_error(self):
        source = os.path.join(self.directory.name, "broken.json")
        with open(source, "w", encoding="utf-8") as file:
            file.write("{ not json")
        done = subprocess.run([sys.executable, SCRIPT, source, self.output], capture_output=True, text=True)
        self.assertEqual(done.returncode, 1)
        self.assertIn("cannot read", done.stderr)


if __name__ == "__main__":
    unittest.main()
