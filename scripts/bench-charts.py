#!/usr/bin/env python3
"""SVG charts of one resolver-bench run (make bench), Python 3 standard library only.

usage: scripts/bench-charts.py BENCH_JSON OUTPUT_DIR

Reads the JSON that `resolver-bench --json` writes and writes into OUTPUT_DIR:

- resolve.svg: ns per lookup (median) against the rule count, every implementation of the
  `resolve` scenario, log-log (x log2, y log10);
- end-to-end.svg: `ratio_to_hand_written` of every row that carries it (the hand-written
  reference itself left out: it is the 1.0x line), on a log axis;
- memory.svg: bytes per binding against the binding count (scenario `memory`, field
  `bytes_per_binding`); without such rows, bytes per rule of the `insert-remove` rows that carry
  `bytes_per_rule`, labelled as bytes per rule.

A chart whose data the run does not have is skipped with a message on stderr (exit status 0):
nothing is plotted that the run did not measure. Every chart states the machine and the date of
the run: the JSON's `date` field when it has one, otherwise the JSON file's modification time,
and says which.
"""

import datetime
import json
import math
import os
import sys
from xml.sax.saxutils import escape, quoteattr

WIDTH = 800
FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
# Okabe & Ito's colour-blind-safe palette without its yellow (too pale on white), then three of
# Paul Tol's (wine, olive, grey) for charts of more than seven series; markers tell them apart too.
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#882255", "#999933", "#888888"]
MARKERS = ["circle", "square", "triangle", "diamond", "triangle-down", "cross"]
GRID = "#d9d9d9"
INK = "#222222"
MUTED = "#555555"
# Where resolver-bench takes its ×hand reference (Scenarios.isHandWrittenReference).
HAND_WRITTEN_REFERENCE = "hand-written (changed only)"
PORTABLE_SUFFIX = "(portable access)"
# A white outline behind text that crosses grid lines, lines or bars.
HALO = {"stroke": "#ffffff", "stroke_width": 4, "stroke_linejoin": "round", "paint_order": "stroke"}


# ---------------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------------


class Run:
    """One bench JSON: its results, and the text that says where and when it was measured."""

    def __init__(self, path):
        with open(path, encoding="utf-8") as file:
            document = json.load(file)
        if not isinstance(document, dict):
            document = {}
        results = document.get("results")
        self.results = [r for r in results if isinstance(r, dict)] if isinstance(results, list) else []
        self.machine = document.get("machine") if isinstance(document.get("machine"), dict) else {}
        self.mode = document.get("mode")
        self.date, self.date_source = run_date(document, path)

    def rows(self, scenario):
        """The results of one scenario, in the run's order."""
        return [r for r in self.results if r.get("scenario") == scenario]

    def provenance(self):
        """Two lines naming the run: its date (and where that came from), then the machine."""
        date = f"Run of {self.date} ({self.date_source})"
        if self.mode and self.mode != "full":
            date += f", {self.mode} mode (a smoke run: figures less stable)"
        return [date, machine_text(self.machine)]


def run_date(document, path):
    """The run's date and where it came from: the JSON's `date`, else the file's mtime (UTC)."""
    date = document.get("date")
    if isinstance(date, str) and date.strip():
        return date.strip(), "the JSON's date field"
    mtime = datetime.datetime.fromtimestamp(os.path.getmtime(path), tz=datetime.timezone.utc)
    return mtime.strftime("%Y-%m-%d %H:%M UTC"), "the JSON file's modification time: the JSON has no date"


def machine_text(machine):
    """The machine line: cpu, cores, os, build, as the JSON says."""
    cores = machine.get("cores")
    parts = [
        machine.get("cpu") or "cpu not recorded",
        f"{cores} cores" if cores is not None else "cores not recorded",
        machine.get("os") or "os not recorded",
        f"{machine['build']} build" if machine.get("build") else "build not recorded",
    ]
    return ", ".join(str(part) for part in parts)


def params_of(row):
    """The row's params, or none when it has no params object."""
    params = row.get("params")
    return params if isinstance(params, dict) else {}


def number(value):
    """The value as a float when it is a finite number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


# ---------------------------------------------------------------------------------------------
# Scales and number formats
# ---------------------------------------------------------------------------------------------


class LogScale:
    """Maps [lo, hi] (positive) to pixels [start, end] logarithmically.

    Base 2: the domain runs from one power of 2 to another, a tick at each (thinned out past
    `most`). Base 10: from one 1, 2 or 5 × 10^k to another, ticks at 1, 2 and 5 × 10^k over at
    most four decades, at the powers of 10 beyond."""

    def __init__(self, lo, hi, start, end, base, most=11):
        self.base, self.most = base, most
        self.lo, self.hi = (snap_down(lo), snap_up(hi)) if base == 10 else (snap_power(lo, 2, math.floor), snap_power(hi, 2, math.ceil))
        if self.hi <= self.lo:
            self.hi = self.lo * base
        self.start, self.end = start, end

    def __call__(self, value):
        fraction = math.log(value / self.lo) / math.log(self.hi / self.lo)
        return self.start + fraction * (self.end - self.start)

    def ticks(self):
        """The labelled values, smallest first."""
        low, high = math.floor(math.log(self.lo, self.base) + 1e-9), math.ceil(math.log(self.hi, self.base) - 1e-9)
        if self.base == 10:
            steps = (1, 2, 5) if high - low <= 4 else (1,)
            candidates = [m * 10.0**e for e in range(low, high + 1) for m in steps]
            return [t for t in candidates if self.lo * (1 - 1e-9) <= t <= self.hi * (1 + 1e-9)]
        stride = max(1, math.ceil((high - low + 1) / self.most))
        return [self.base**e for e in range(low, high + 1, stride)]

    def minor_ticks(self):
        """For base 10: 2..9 × each power inside the domain (unlabelled grid lines); none otherwise."""
        if self.base != 10:
            return []
        low, high = math.floor(math.log10(self.lo) + 1e-9), math.ceil(math.log10(self.hi) - 1e-9)
        candidates = [m * 10.0**e for e in range(low, high) for m in range(2, 10)]
        return [t for t in candidates if self.lo < t < self.hi]


def snap_power(value, base, rounding):
    """The power of base at or below (math.floor) or above (math.ceil) the value."""
    return base ** rounding(math.log(value, base) + (1e-9 if rounding is math.floor else -1e-9))


def snap_down(value):
    """The largest 1, 2 or 5 × 10^k at or below the value."""
    power = 10.0 ** math.floor(math.log10(value) + 1e-9)
    return max(m * power for m in (1, 2, 5) if m * power <= value * (1 + 1e-9))


def snap_up(value):
    """The smallest 1, 2 or 5 × 10^k at or above the value."""
    power = 10.0 ** math.floor(math.log10(value) + 1e-9)
    return min(m * power for m in (1, 2, 5, 10) if m * power >= value * (1 - 1e-9))


class LinearScale:
    """Maps [0, hi] to pixels [start, end], hi rounded up to a tick; ticks at 1, 2 or 5 × 10^k."""

    def __init__(self, hi, start, end):
        raw = max(hi, 1e-9) / 5
        power = 10 ** math.floor(math.log10(raw))
        self.step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
        self.high = self.step * math.ceil(hi / self.step - 1e-9)
        self.start, self.end = start, end

    def __call__(self, value):
        return self.start + value / self.high * (self.end - self.start)

    def ticks(self):
        """0, step, 2 × step, … up to the top of the domain."""
        count = round(self.high / self.step)
        return [i * self.step for i in range(count + 1)]


def format_count(value):
    """An integer with thousands separators, a fraction with up to 3 significant digits."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:.3g}"


def format_ratio(value):
    """A ratio as the BENCHMARKS tables give it: 0.08×, 1.06×, 14.6×, 352×."""
    if value >= 100:
        return f"{value:.0f}×"
    return f"{value:.1f}×" if value >= 10 else f"{value:.2f}×"


# ---------------------------------------------------------------------------------------------
# SVG
# ---------------------------------------------------------------------------------------------


def svg_document(height, title, body):
    """A standalone SVG document: white background, the chart's title as its <title>."""
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0f}" '
        f'viewBox="0 0 {WIDTH} {height:.0f}" font-family={quoteattr(FONT)} font-size="12" fill="{INK}">\n'
        f"<title>{escape(title)}</title>\n"
        f'<rect width="100%" height="100%" fill="#ffffff"/>\n' + "\n".join(body) + "\n</svg>\n"
    )


def text(x, y, content, size=12, anchor="start", css_class=None, **attributes):
    """A <text> element; extra attributes by keyword (underscores become hyphens)."""
    extra = "".join(f" {k.replace('_', '-')}={quoteattr(str(v))}" for k, v in attributes.items())
    if css_class:
        extra += f" class={quoteattr(css_class)}"
    return f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}"{extra}>{escape(content)}</text>'


def line(x1, y1, x2, y2, stroke=GRID, width=1, dash=None):
    """A <line> element."""
    dashed = f' stroke-dasharray="{dash}"' if dash else ""
    return f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{stroke}" stroke-width="{width}"{dashed}/>'


def marker(shape, x, y, colour, filled, size=4.5):
    """A data point drawn as one of MARKERS, filled or hollow (white inside)."""
    fill = colour if filled else "#ffffff"
    style = f'fill="{fill}" stroke="{colour}" stroke-width="1.6"'
    s = size
    if shape == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{s:.1f}" {style}/>'
    if shape == "square":
        return f'<rect x="{x - s:.1f}" y="{y - s:.1f}" width="{2 * s:.1f}" height="{2 * s:.1f}" {style}/>'
    if shape == "cross":
        return f'<path d="M{x - s:.1f},{y - s:.1f}L{x + s:.1f},{y + s:.1f}M{x - s:.1f},{y + s:.1f}L{x + s:.1f},{y - s:.1f}" {style}/>'
    corners = {
        "triangle": [(0, -1.25), (1.1, 0.75), (-1.1, 0.75)],
        "triangle-down": [(0, 1.25), (1.1, -0.75), (-1.1, -0.75)],
        "diamond": [(0, -1.3), (1.3, 0), (0, 1.3), (-1.3, 0)],
    }[shape]
    points = " ".join(f"{x + dx * s:.1f},{y + dy * s:.1f}" for dx, dy in corners)
    return f'<polygon points="{points}" {style}/>'


def header(title, subtitles):
    """The chart's title and its subtitle lines, top left; returns (elements, y below them)."""
    body = [text(20, 28, title, size=17, font_weight="bold")]
    body += [text(20, 48 + 16 * i, content, fill=MUTED, css_class="subtitle") for i, content in enumerate(subtitles)]
    return body, 48 + 16 * len(subtitles)


def footer(lines, y):
    """The provenance lines (date, machine), small, from y down."""
    return [text(20, y + 15 * i, content, size=11, fill=MUTED, css_class="provenance") for i, content in enumerate(lines)]


def text_width(content, size=12):
    """A rough width of the text in pixels (the viewer's sans-serif font is not known)."""
    return len(content) * size * 0.56


# ---------------------------------------------------------------------------------------------
# Line charts
# ---------------------------------------------------------------------------------------------


class Series:
    """A named line of (x, y) points with its style: colour, marker, solid (filled) or dashed."""

    def __init__(self, label, points, index, solid=True):
        self.label = label
        self.points = sorted(points)
        self.colour = PALETTE[index % len(PALETTE)]
        self.marker = MARKERS[index % len(MARKERS)]
        self.solid = solid


def series_by_implementation(rows, x_param, y_field, ignored=()):
    """Rows grouped into (label, points) by implementation and their other params, in run order.

    A point needs a positive number at params[x_param] and at the row's y_field (or, failing
    that, at params[y_field]); rows without are left out."""
    groups = {}
    for row in rows:
        xy = point(row, x_param, y_field)
        if xy is None:
            continue
        others = [f"{k}={v}" for k, v in sorted(params_of(row).items()) if k not in (x_param, y_field, *ignored)]
        label = str(row.get("implementation", "?")) + (f" ({', '.join(others)})" if others else "")
        groups.setdefault(label, []).append(xy)
    return list(groups.items())


def point(row, x_param, y_field):
    """(x, y): positive numbers at params[x_param] and at the row's y_field (else params[y_field]), or None."""
    params = params_of(row)
    x, y = number(params.get(x_param)), number(row.get(y_field, params.get(y_field)))
    return (x, y) if x is not None and y is not None and x > 0 and y > 0 else None


def common_note(rows, x_param, y_field):
    """The note that the rows plotted (see point) all share, or None."""
    notes = [row.get("note") for row in rows if point(row, x_param, y_field)]
    return notes[0] if notes and isinstance(notes[0], str) and notes.count(notes[0]) == len(notes) else None


def overlap(a, b):
    """Whether two boxes (left, top, right, bottom) intersect."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


class LineChart:
    """A line chart: log2 x, log10 or linear (from 0) y, a legend of two columns below the plot.

    Solid series are drawn last, over the dashed ones."""

    LEFT, RIGHT, PLOT_HEIGHT = 88, 44, 400

    def __init__(self, title, subtitles, axis_labels, series, y_log=True, point_labels=None):
        self.title, self.subtitles = title, subtitles
        self.x_label, self.y_label = axis_labels
        self.series = series
        self.y_log, self.point_labels = y_log, point_labels
        self.top = 48 + 16 * len(subtitles) + 16
        self.bottom = self.top + self.PLOT_HEIGHT
        xs = [x for s in series for x, _ in s.points]
        ys = [y for s in series for _, y in s.points]
        self.x = LogScale(min(xs), max(xs), self.LEFT, WIDTH - self.RIGHT, 2)
        self.y = LogScale(min(ys), max(ys), self.bottom, self.top, 10) if y_log else LinearScale(max(ys) * 1.1, self.bottom, self.top)

    def render(self, provenance):
        """The SVG document."""
        body = header(self.title, self.subtitles)[0] + self.grid() + self.axes()
        for series in sorted(self.series, key=lambda s: s.solid):
            body += self.plot(series)
        if self.point_labels:
            body += self.value_labels()
        legend_top = self.bottom + 66
        legend_bottom = legend_top + math.ceil(len(self.series) / 2) * 20
        body += self.legend(legend_top) + footer(provenance, legend_bottom + 14)
        return svg_document(legend_bottom + 44, self.title, body)

    def grid(self):
        """Grid lines at the ticks (and, on a log y axis, light lines at 2..9 × each decade)."""
        left, right = self.LEFT, WIDTH - self.RIGHT
        body = [line(self.x(t), self.top, self.x(t), self.bottom) for t in self.x.ticks()]
        if self.y_log:
            body += [line(left, self.y(t), right, self.y(t), stroke="#f0f0f0") for t in self.y.minor_ticks()]
        body += [line(left, self.y(t), right, self.y(t)) for t in self.y.ticks()]
        return body

    def axes(self):
        """The frame, tick labels and axis titles."""
        left, right, top, bottom = self.LEFT, WIDTH - self.RIGHT, self.top, self.bottom
        body = [f'<rect x="{left}" y="{top}" width="{right - left}" height="{bottom - top}" fill="none" stroke="{MUTED}"/>']
        body += [text(self.x(t), bottom + 18, format_count(t), anchor="middle", css_class="x-tick") for t in self.x.ticks()]
        body += [text(left - 8, self.y(t) + 4, format_count(t), anchor="end", css_class="y-tick") for t in self.y.ticks()]
        body.append(text((left + right) / 2, bottom + 42, self.x_label, size=13, anchor="middle", css_class="x-label"))
        middle = (top + bottom) / 2
        body.append(text(22, middle, self.y_label, size=13, anchor="middle", css_class="y-label", transform=f"rotate(-90 22 {middle:.1f})"))
        return body

    def plot(self, series):
        """One series: its line and its markers."""
        points = [(self.x(x), self.y(y)) for x, y in series.points]
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
        dash = "" if series.solid else ' stroke-dasharray="6 4"'
        body = [f'<polyline points="{path}" fill="none" stroke="{series.colour}" stroke-width="2"{dash}/>']
        return body + [marker(series.marker, px, py, series.colour, series.solid) for px, py in points]

    def value_labels(self):
        """Each point's value, above it or else below it; left out where it would overlap another."""
        placed, body = [], []
        for series in self.series:
            for x, y in series.points:
                label = self.point_labels(x, y)
                half = text_width(label, 11) / 2
                px = min(max(self.x(x), self.LEFT + half + 4), WIDTH - self.RIGHT - half - 4)
                for baseline in (self.y(y) - 10, self.y(y) + 19):
                    box = (px - half, baseline - 11, px + half, baseline + 2)
                    if not any(overlap(box, other) for other in placed):
                        placed.append(box)
                        style = {"fill": series.colour, "css_class": "point-label", **HALO}
                        body.append(text(px, baseline, label, size=11, anchor="middle", **style))
                        break
        return body

    def legend(self, top):
        """Two columns of line-and-marker samples with the series' labels."""
        body = []
        for i, series in enumerate(self.series):
            x = self.LEFT + (i % 2) * 350
            y = top + (i // 2) * 20
            dash = None if series.solid else "6 4"
            body.append(line(x, y, x + 30, y, stroke=series.colour, width=2, dash=dash))
            body.append(marker(series.marker, x + 15, y, series.colour, series.solid))
            body.append(text(x + 38, y + 4, series.label, css_class="legend"))
        return body


# ---------------------------------------------------------------------------------------------
# The charts
# ---------------------------------------------------------------------------------------------


def resolve_chart(run):
    """ns per lookup against rule count, every implementation of the resolve scenario."""
    groups = series_by_implementation(run.rows("resolve"), "rules", "ns_per_op_median")
    if not groups:
        return None, "no `resolve` rows with params.rules and ns_per_op_median"
    series = [Series(label, points, i, solid=label.startswith("resolver")) for i, (label, points) in enumerate(groups)]
    chart = LineChart(
        "Resolve: time per lookup against rule count",
        [
            "One binding's value looked up for a state; the median of the run's repeats.",
            "Solid: this resolver (warm: from its cache; cold: computed from the rules). Dashed: the other approaches.",
        ],
        ("rules of the binding looked up (log₂ scale)", "time per lookup, ns (median, log scale)"),
        series,
    )
    return chart.render(run.provenance()), None


def memory_chart(run):
    """Bytes per binding against binding count (memory); else bytes per rule (insert-remove)."""
    rows, field = run.rows("memory"), "bytes_per_binding"
    groups = series_by_implementation(rows, "bindings", field)
    if groups:
        what, unit = "binding", "B"
        subtitles = ["Memory per binding, scenario memory."]
    else:
        rows, field = run.rows("insert-remove"), "bytes_per_rule"
        groups = series_by_implementation(rows, "bindings", field, ignored=("rules",))
        what, unit = "rule", "B/rule"
        subtitles = [f"No memory scenario in this run: bytes per rule of the insert-remove rows{rules_per_binding(rows)}."]
    if not groups:
        return None, "no `memory` rows with bytes_per_binding, nor `insert-remove` rows with bytes_per_rule, with params.bindings"
    note = common_note(rows, "bindings", field)
    subtitles.append(f"As the bench notes: {note}" if note else "Measured as each row's note in the JSON says.")
    ys = [y for _, points in groups for _, y in points]
    y_log = max(ys) > 10 * min(ys)  # from 0 unless the values span more than a decade
    chart = LineChart(
        f"Memory per {what} against binding count",
        subtitles,
        ("bindings (log₂ scale)", f"memory per {what}, bytes" + (" (log scale)" if y_log else "")),
        [Series(label, points, i) for i, (label, points) in enumerate(groups)],
        y_log=y_log,
        point_labels=lambda x, y: f"{y:,.0f} {unit}",
    )
    return chart.render(run.provenance()), None


def rules_per_binding(rows):
    """' (N rules per binding)' when the rows with bytes_per_rule all have the same ratio."""
    ratios = set()
    for row in rows:
        params = params_of(row)
        rules, bindings = number(params.get("rules")), number(params.get("bindings"))
        if number(row.get("bytes_per_rule")) is not None and rules and bindings:
            ratios.add(rules / bindings)
    return f" ({format_count(ratios.pop())} rules per binding)" if len(ratios) == 1 else ""


def ratio_rows(run):
    """(scenario, row, ratio, portable) of the rows with ratio_to_hand_written, grouped by scenario.

    The hand-written reference itself (always 1.0) is left out: it is the chart's 1.0× line."""
    rows = []
    for row in run.results:
        ratio = number(row.get("ratio_to_hand_written"))
        implementation = str(row.get("implementation", "?"))
        if ratio is None or ratio <= 0 or implementation.startswith(HAND_WRITTEN_REFERENCE):
            continue
        rows.append((str(row.get("scenario", "?")), row, ratio, implementation.endswith(PORTABLE_SUFFIX)))
    first = {}
    for scenario, _, _, _ in rows:
        first.setdefault(scenario, len(first))
    return sorted(rows, key=lambda row: first[row[0]])  # stable: the run's order within a scenario


def varying_params(rows):
    """Per scenario, the params whose values differ between its rows (they name a bar)."""
    values = {}
    for scenario, row, _, _ in rows:
        for key, value in params_of(row).items():
            values.setdefault(scenario, {}).setdefault(key, set()).add(str(value))
    return {scenario: {k for k, v in keys.items() if len(v) > 1} for scenario, keys in values.items()}


def ratio_chart(run):
    """Horizontal bars of ratio_to_hand_written from 1.0×, on a log axis, grouped by scenario."""
    rows = ratio_rows(run)
    if not rows:
        return None, "no rows with ratio_to_hand_written (other than the hand-written reference)"
    return RatioChart(rows, varying_params(rows)).render(run.provenance()), None


class RatioChart:
    """Bars from the 1.0× line to each ratio (log x axis); each bar's label above it."""

    LEFT, RIGHT, ROW, GROUP = 40, 60, 38, 24
    DIRECT, PORTABLE = PALETTE[0], PALETTE[1]
    TITLE = "End to end: time against the same work written by hand"
    SUBTITLES = [
        "Each bar: ns per operation (median) of an implementation ÷ that of the hand-written code writing",
        "changed values only (the 1.0× line), same scenario and params, as the run computed it (ratio_to_hand_written).",
    ]

    def __init__(self, rows, varying):
        self.rows, self.varying = rows, varying
        ratios = [ratio for _, _, ratio, _ in rows] + [1.0]
        self.x = LogScale(min(ratios), max(ratios), self.LEFT, WIDTH - self.RIGHT, 10)

    def render(self, provenance):
        """The SVG document."""
        body, y = header(self.TITLE, self.SUBTITLES)
        body += self.legend(y + 8)
        top = y + 30
        bars, y, scenario = [], top, None
        for row in self.rows:
            if row[0] != scenario:
                scenario = row[0]
                y += self.GROUP if bars else 14
                bars.append(text(self.LEFT - 16, y, scenario, size=13, font_weight="bold", css_class="group", **HALO))
                y += 4
            bars += self.bar(row, y)
            y += self.ROW
        bottom = y + 4
        body += self.axis(top, bottom) + bars
        return svg_document(bottom + 88, self.TITLE, body + footer(provenance, bottom + 60))

    def legend(self, y):
        """Colour key (direct vs portable access) and what the 1.0× line is."""
        body = []
        for i, (colour, label) in enumerate([(self.DIRECT, "direct property access"), (self.PORTABLE, "portable property access")]):
            x = 20 + i * 210
            body.append(f'<rect x="{x}" y="{y}" width="14" height="12" fill="{colour}"/>')
            body.append(text(x + 20, y + 10, label, css_class="legend"))
        body.append(line(440, y - 2, 440, y + 14, stroke=INK, width=2))
        body.append(text(447, y + 10, "1.0× = hand-written (changed values only)", css_class="legend"))
        return body

    def axis(self, top, bottom):
        """Vertical grid lines at the ticks, their labels below, the 1.0× line, the axis title."""
        body = []
        for t in self.x.ticks():
            body.append(line(self.x(t), top, self.x(t), bottom))
            body.append(text(self.x(t), bottom + 16, format_count(t) + "×", anchor="middle", css_class="x-tick"))
        body.append(line(self.x(1.0), top, self.x(1.0), bottom, stroke=INK, width=2))
        label = "time ÷ time of the hand-written code (log scale; left of 1.0×: faster, right: slower)"
        body.append(text((self.LEFT + WIDTH - self.RIGHT) / 2, bottom + 36, label, size=13, anchor="middle", css_class="x-label"))
        return body

    def bar(self, row, y):
        """One bar: its label (implementation and the params that tell it apart) and its value."""
        scenario, result, ratio, portable = row
        params = params_of(result)
        named = [f"{k}={params[k]}" for k in sorted(self.varying.get(scenario, ())) if k in params]
        label = str(result.get("implementation", "?")) + (f" — {', '.join(named)}" if named else "")
        one, end = self.x(1.0), self.x(ratio)
        colour = self.PORTABLE if portable else self.DIRECT
        body = [text(self.LEFT - 8, y + 12, label, css_class="bar-label", **HALO)]
        body.append(f'<rect x="{min(one, end):.1f}" y="{y + 17:.1f}" width="{max(abs(end - one), 1):.1f}" height="14" fill="{colour}"/>')
        value_x, anchor = (end + 5, "start") if ratio >= 1 else (end - 5, "end")
        body.append(text(value_x, y + 28, format_ratio(ratio), anchor=anchor, font_weight="bold", css_class="value", **HALO))
        return body


CHARTS = [("resolve.svg", resolve_chart), ("end-to-end.svg", ratio_chart), ("memory.svg", memory_chart)]


def main(arguments):
    """Writes every chart the run has data for; the others are skipped with a message."""
    if len(arguments) != 2:
        print("usage: scripts/bench-charts.py BENCH_JSON OUTPUT_DIR", file=sys.stderr)
        return 2
    source, output = arguments
    try:
        run = Run(source)
    except (OSError, ValueError) as error:
        print(f"bench-charts: cannot read {source}: {error}", file=sys.stderr)
        return 1
    os.makedirs(output, exist_ok=True)
    for name, build in CHARTS:
        svg, missing = build(run)
        if svg is None:
            print(f"bench-charts: {name} skipped: {missing} in {source}", file=sys.stderr)
            continue
        with open(os.path.join(output, name), "w", encoding="utf-8") as file:
            file.write(svg)
        print(f"bench-charts: wrote {os.path.join(output, name)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
