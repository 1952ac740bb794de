"""end-to-end.svg: what Control costs next to the same behaviour written by hand, in
instructions (make bench-ir), where its goals are stated, with make bench's wall time beside.

One group of bars a goal of bench-ir.sh against a hand-written loop (its reference loop ends in
"-hand"); in each, one bar for the direct property access and one for the portable access (the
goal of the same name with ", portable access"), then a grey bar for each plain-Swift floor
bench-ir.sh states for the group's portable goal. A bar runs from 1.0× (the hand-written code)
to the loop's instructions ÷ the reference's; the goal is a dashed mark across it."""

from .run import number
from .svg import (GOAL_DASH, GRID, HALO, INK, MUTED, PALETTE, LogScale, format_count, format_limit, format_ratio, footer,
                  header, line, rect, svg_document, text)

PORTABLE_GOAL = ", portable access"
PORTABLE_LOOP = " (portable)"
# The make bench row of each loop counted by make bench-ir, for the wall time beside its bar:
# (scenario, implementation, params it must have). The portable access's rows are named with
# " (portable access)" appended. Only the "state change" rows: resolver-bench also reports each
# 1,000-bindings row per value written, the same measurement divided by 1,000.
WALL_ROWS = {
    "update-baseline-control": ("update-baseline", "Control (setValue bindings)", {}),
    "form-control": ("form", "Control (custom state + bound isEnabled)", {}),
    "bindings-1000-100pct-control": ("bindings-1000", "Control (isSelected toggle)", {"changing_percent": 100, "op": "state change"}),
    "bindings-1000-1pct-control": ("bindings-1000", "Control (isFocused toggle)", {"changing_percent": 1, "op": "state change"}),
    "bindings-1000-100pct-table-control": (
        "bindings-1000", "Control, key paths from a table (isSelected toggle)", {"changing_percent": 100, "op": "state change"}),
}
WIDTH = 960


class Bar:
    """One bar: the access (or what a floor is), the instruction ratio (None when not counted), its
    goal, the wall ratio; `floor`: the same work in plain Swift, no library (bench-ir.sh's floor)."""

    def __init__(self, access, goal, ratio, wall, floor=False):
        self.access, self.goal, self.ratio, self.wall, self.floor = access, goal, ratio, wall, floor


def groups(run, instructions):
    """[(heading, [Bar])]: the goals against hand-written code, each access once, in bench-ir.sh's
    order, then the floors of the group's portable goal."""
    found = {}
    for goal in instructions.goals:
        if not goal.reference.endswith("-hand"):
            continue
        portable = goal.name.endswith(PORTABLE_GOAL)
        name = goal.name.removesuffix(PORTABLE_GOAL)
        access = "portable access" if portable else "direct access"
        bars = found.setdefault(name, {})
        if access not in bars:  # each bar once, whatever the file repeats
            bars[access] = Bar(access, goal, instructions.ratio(goal.loop, goal.reference), wall_ratio(run, goal.loop))
    for floor in instructions.floors:
        bars = found.get(floor.goal, {})
        label = "floor, " + floor.what
        if "portable access" in bars and label not in bars:
            goal = bars["portable access"].goal
            bars[label] = Bar(label, goal, instructions.ratio(floor.loop, goal.reference), None, floor=True)
    return [(heading(name), [bars[a] for a in ("direct access", "portable access") if a in bars]
             + [b for b in bars.values() if b.floor]) for name, bars in found.items()]


def heading(name):
    """A goal's name as a group heading: "button state change ÷ hand-written"."""
    measured, _, reference = name.partition(" / ")
    return f"{measured} ÷ {reference}" if reference else measured


def wall_ratio(run, loop):
    """make bench's ratio_to_hand_written of the loop's row, or None when the run has none."""
    portable = loop.endswith(PORTABLE_LOOP)
    where = WALL_ROWS.get(loop.removesuffix(PORTABLE_LOOP))
    if where is None or run is None:
        return None
    scenario, implementation, params = where
    row = run.find(scenario, implementation + (" (portable access)" if portable else ""), params)
    return number(row.get("ratio_to_hand_written")) if row else None


class EndToEndChart:
    """Bars from the 1.0× line on a log axis; to the right, the columns of figures."""

    LABELS, PLOT_RIGHT, ROW, GROUP = 150, 590, 24, 30
    COLUMNS = [(610, "instructions"), (715, "goal"), (850, "wall time")]
    COLOURS = {"direct access": PALETTE[0], "portable access": PALETTE[1], "plain-Swift floor": PALETTE[9]}
    TITLE = "End to end: Control against the same behaviour written by hand, in instructions"
    SUBTITLES = [
        "Each bar: instructions per iteration through Control ÷ those of the hand-written code (make bench-ir, valgrind:",
        "the same count on any machine). The goals are stated in instructions: black dashes. Left of 1.0×: fewer instructions.",
        "Wall time (make bench's median ÷ the hand-written row's) is beside each bar: noisier, for information.",
        "Grey: the same work in plain Swift, no library (weak references, or targets held): the portable access cannot go below it.",
    ]

    def __init__(self, groups):
        self.groups = groups
        values = [1.0] + [v for _, bars in groups for b in bars for v in (b.ratio, b.goal.limit) if v]
        self.x = LogScale(min(values), max(values), self.LABELS, self.PLOT_RIGHT, 10)

    def render(self, provenance):
        """The SVG document."""
        body, y = header(self.TITLE, self.SUBTITLES)
        body += self.legend(y + 8)
        top = y + 44
        body += [text(x, top - 6, label, font_weight="bold", css_class="column") for x, label in self.COLUMNS]
        rows, y = [], top
        for title, bars in self.groups:
            y += self.GROUP if rows else 18
            rows.append(text(20, y, title, size=13, font_weight="bold", css_class="group", **HALO))
            y += 6
            for bar in bars:
                rows += self.bar(bar, y)
                y += self.ROW
        bottom = y + 4
        body += self.axis(top, bottom) + rows
        return svg_document(bottom + 74 + 15 * len(provenance), self.TITLE, body + footer(provenance, bottom + 60), width=WIDTH)

    def legend(self, y):
        """Colour key, the goal's dashes and what the 1.0× line is."""
        body = []
        for i, (access, colour) in enumerate(self.COLOURS.items()):
            x = 20 + i * 150
            body.append(rect(x, y, 14, 12, colour))
            body.append(text(x + 20, y + 10, access, css_class="legend"))
        body.append(line(480, y + 6, 510, y + 6, stroke=INK, width=2, dash=GOAL_DASH))
        body.append(text(516, y + 10, "goal", css_class="legend"))
        body.append(line(580, y - 2, 580, y + 14, stroke=INK, width=2))
        body.append(text(587, y + 10, "1.0×: the hand-written code", css_class="legend"))
        return body

    def axis(self, top, bottom):
        """Vertical grid lines at the ticks, their labels below, the 1.0× line, the axis title."""
        body = []
        for t in self.x.ticks():
            body.append(line(self.x(t), top, self.x(t), bottom))
            body.append(text(self.x(t), bottom + 16, format_count(t) + "×", anchor="middle", css_class="x-tick"))
        body.append(line(self.x(1.0), top, self.x(1.0), bottom, stroke=INK, width=2))
        label = "instructions ÷ instructions of the hand-written code (log scale)"
        body.append(text((self.LABELS + self.PLOT_RIGHT) / 2, bottom + 36, label, size=13, anchor="middle", css_class="x-label"))
        body.append(line(self.PLOT_RIGHT + 10, top, self.PLOT_RIGHT + 10, bottom, stroke=GRID))
        return body

    def bar(self, bar, y):
        """One bar with its goal mark, and its row of figures: ratio, goal, met or missed, wall time."""
        body = [text(self.LABELS - 8, y + 12, bar.access, anchor="end", css_class="bar-label")]
        one = self.x(1.0)
        if bar.ratio is not None:
            end = self.x(bar.ratio)
            colour = self.COLOURS["plain-Swift floor" if bar.floor else bar.access]
            body.append(rect(min(one, end), y + 2, max(abs(end - one), 1), 14, colour, css_class="bar"))
        goal_x = self.x(bar.goal.limit)
        body.append(line(goal_x, y - 1, goal_x, y + 19, stroke=INK, width=2, dash=GOAL_DASH, css_class="goal"))
        (ratio_x, _), (goal_column, _), (wall_x, _) = self.COLUMNS
        measured = format_ratio(bar.ratio) if bar.ratio is not None else "not counted"
        body.append(text(ratio_x, y + 13, measured, font_weight="bold", css_class="value"))
        if bar.ratio is None:
            verdict = ""
        elif bar.floor:
            verdict = "" if bar.ratio <= bar.goal.limit else ": out of reach"
        else:
            verdict = ", met" if bar.ratio <= bar.goal.limit else ", missed"
        body.append(text(goal_column, y + 13, f"≤ {format_limit(bar.goal.limit)}{verdict}", css_class="goal-value"))
        if not bar.floor:  # make bench does not run the floors
            wall = f"{format_ratio(bar.wall)} wall" if bar.wall is not None else "not in this run"
            body.append(text(wall_x, y + 13, wall, fill=MUTED, css_class="wall"))
        return body


def end_to_end_chart(run, instructions):
    """The chart, or (None, why not) when make bench-ir has not been run or has no such goal."""
    if instructions is None:
        return None, "no instruction counts (make bench-ir writes .build/bench-ir.tsv)"
    found = groups(run, instructions)
    if not found:
        return None, "no goal against a hand-written loop in the bench-ir file"
    provenance = [instructions.provenance()] + (run.provenance() if run else [])
    return EndToEndChart(found).render(provenance), None
