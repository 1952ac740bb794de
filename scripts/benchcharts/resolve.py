"""resolve.svg: time per lookup against the rule count, every implementation of the `resolve`
scenario, log-log, with the two goals that wall time decides (at 16 rules)."""

import math

from .run import number, params_of
from .svg import (GOAL_DASH, HALO, INK, MARKERS, MUTED, PALETTE, WIDTH, LogScale, format_count, footer, header, line,
                  marker, svg_document, text)

# The goals of resolver-bench's Goals (ResolverBench.swift) that this chart can show: warm and cold
# resolution at R = 16 at least this many times faster than the original algorithm, in wall time.
GOAL_RULES = 16
ORIGINAL = "original (filter + max)"
SPEED_UP_GOALS = [("resolver (warm)", 20), ("resolver (cold)", 5)]


class Series:
    """A named line of (x, y) points with its style: colour, marker, solid (filled) or dashed."""

    def __init__(self, label, points, index, solid=True):
        self.label = label
        self.points = sorted(points)
        self.colour = PALETTE[index % len(PALETTE)]
        self.marker = MARKERS[index % len(MARKERS)]
        self.solid = solid


def series_by_implementation(rows, x_param, y_field):
    """Rows grouped into (implementation, points) in run order; a point needs positive numbers at
    params[x_param] and at the row's y_field. Rows of one implementation that differ in another
    param are not one line: they are left out (the resolve rows have the rule count alone)."""
    groups = {}
    for row in rows:
        params = params_of(row)
        x, y = number(params.get(x_param)), number(row.get(y_field))
        if x is None or y is None or x <= 0 or y <= 0 or set(params) != {x_param}:
            continue
        groups.setdefault(str(row.get("implementation", "?")), []).append((x, y))
    return list(groups.items())


class LineChart:
    """A line chart, log2 x and log10 y, goal marks, a legend of two columns below the plot.

    Solid series are drawn last, over the dashed ones. A goal mark is (x, y, label): a dashed
    black segment across x at y, its label beside it."""

    LEFT, RIGHT, PLOT_HEIGHT = 88, 44, 400

    def __init__(self, title, subtitles, axis_labels, series, goals=()):
        self.title, self.subtitles = title, subtitles
        self.x_label, self.y_label = axis_labels
        self.series, self.goals = series, list(goals)
        self.top = 48 + 16 * len(subtitles) + 16
        self.bottom = self.top + self.PLOT_HEIGHT
        xs = [x for s in series for x, _ in s.points]
        ys = [y for s in series for _, y in s.points] + [y for _, y, _ in self.goals]
        self.x = LogScale(min(xs), max(xs), self.LEFT, WIDTH - self.RIGHT, 2)
        self.y = LogScale(min(ys), max(ys), self.bottom, self.top, 10)

    def render(self, provenance):
        """The SVG document."""
        body = header(self.title, self.subtitles)[0] + self.grid() + self.axes()
        for series in sorted(self.series, key=lambda s: s.solid):
            body += self.plot(series)
        body += self.goal_marks()
        legend_top = self.bottom + 66
        legend_bottom = legend_top + math.ceil(len(self.series) / 2) * 20
        body += self.legend(legend_top) + footer(provenance, legend_bottom + 14)
        return svg_document(legend_bottom + 44, self.title, body)

    def grid(self):
        """Grid lines at the ticks, light lines at 2..9 × each decade of y."""
        left, right = self.LEFT, WIDTH - self.RIGHT
        body = [line(self.x(t), self.top, self.x(t), self.bottom) for t in self.x.ticks()]
        body += [line(left, self.y(t), right, self.y(t), stroke="#f0f0f0") for t in self.y.minor_ticks()]
        return body + [line(left, self.y(t), right, self.y(t)) for t in self.y.ticks()]

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

    def goal_marks(self):
        """Each goal: a dashed black segment at its value, its label to the right."""
        body = []
        for x, y, label in self.goals:
            px, py = self.x(x), self.y(y)
            body.append(line(px - 34, py, px + 34, py, stroke=INK, width=2, dash=GOAL_DASH, css_class="goal"))
            body.append(text(px + 40, py + 4, label, size=11, css_class="goal-label", **HALO))
        return body

    def legend(self, top):
        """Two columns of line-and-marker samples with the series' labels."""
        body = []
        for i, series in enumerate(self.series):
            x = self.LEFT + (i % 2) * 350
            y = top + (i // 2) * 20
            body.append(line(x, y, x + 30, y, stroke=series.colour, width=2, dash=None if series.solid else "6 4"))
            body.append(marker(series.marker, x + 15, y, series.colour, series.solid))
            body.append(text(x + 38, y + 4, series.label, css_class="legend"))
        return body


def speed_up_goals(groups):
    """(x, y, label) of each goal at GOAL_RULES whose rows the run has: the original's time ÷ the speed-up."""
    points = dict(groups)
    original = dict(points.get(ORIGINAL, [])).get(GOAL_RULES)
    if original is None:
        return []
    goals = []
    for implementation, speed_up in SPEED_UP_GOALS:
        if implementation in points:
            label = f"goal: {implementation.removeprefix('resolver ').strip('()')} ≤ original ÷ {speed_up}"
            goals.append((GOAL_RULES, original / speed_up, label))
    return goals


def resolve_chart(run):
    """ns per lookup against rule count, every implementation of the resolve scenario."""
    groups = series_by_implementation(run.rows("resolve"), "rules", "ns_per_op_median")
    if not groups:
        return None, "no `resolve` rows with params.rules and ns_per_op_median"
    series = [Series(label, points, i, solid=label.startswith("resolver")) for i, (label, points) in enumerate(groups)]
    goals = speed_up_goals(groups)
    subtitles = [
        "One binding's value looked up for a state; wall time, the median of the run's repeats.",
        "Solid: this resolver (warm: from its cache; cold: computed from the rules). Dashed: the other approaches.",
    ]
    if goals:
        subtitles.append(f"Black dashes at {GOAL_RULES} rules: the goals, warm and cold resolution that much faster than the original.")
    chart = LineChart(
        "Resolve: time per lookup against rule count",
        subtitles,
        ("rules of the binding looked up (log₂ scale)", "time per lookup, ns (median, log scale)"),
        series,
        goals,
    )
    return chart.render(run.provenance()), None
