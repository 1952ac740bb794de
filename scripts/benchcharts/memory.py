"""memory.svg: the `memory` scenario as a table, each figure beside its goal.

A table rather than a line: the scenario measures three binding counts, and the resident set
grows by whole pages, too coarse at 1,000 bindings to be read per binding: a line through the
three points would draw that noise as a trend. The malloc heap's growth (from the row's note) is
given beside the resident set's."""

import re

from .run import number, params_of
from .svg import GRID, INK, MUTED, format_count, footer, header, line, svg_document, text

BIND = "Control.setValue, one control (bind)"
REMOVE = "Control.removeAllValues()"
# The memory goals of resolver-bench's Goals (ResolverBench.swift), which checks them at 1M bindings
# on one control and for controls with 2 bindings: (field, at most, unit).
GOAL_BINDINGS = 1_000_000
BINDING_GOALS = {"bytes": 200, "bind": 1000, "remove": 0.3e9}
CONTROL_GOAL = 1024
HEAP = re.compile(r"malloc heap growth ([0-9.]+) B")
COLUMNS = [(20, "measure"), (470, "at"), (590, "this run"), (760, "goal"), (890, "")]
WIDTH = 960
# The parenthesis that ends an implementation's name: what its loop does, "(create, bind, change)".
STEPS = re.compile(r"\s*\([^()]*\)$")


def seconds(ns):
    """A duration in ns as a reader reads it: 347 ns, 1 µs, 1.55 ms, 0.156 s."""
    if ns >= 1e8:
        return f"{ns / 1e9:.3g} s"
    if ns >= 1e5:
        return f"{ns / 1e6:.3g} ms"
    return f"{ns / 1e3:.3g} µs" if ns >= 1e3 else f"{ns:.0f} ns"


def table_rows(run):
    """[(measure, at, value text, value, goal text, limit)] of the memory rows, the run's order
    within each measure; limit None where no goal applies."""
    rows = run.rows("memory")
    bindings = [(number(params_of(r).get("bindings")), r) for r in rows]
    bindings = sorted(((c, r) for c, r in bindings if c and r.get("implementation") in (BIND, REMOVE)), key=lambda pair: pair[0])
    table = []

    def goal(count, limit, shown):
        return (shown, limit) if count == GOAL_BINDINGS else (f"({shown} at {GOAL_BINDINGS:,})", None)

    for count, row in bindings:
        if row["implementation"] == BIND and number(row.get("bytes_per_binding")) is not None:
            value = number(row["bytes_per_binding"])
            heap = HEAP.search(str(row.get("note", "")))
            shown = f"{value:,.0f} B" + (f" (heap {float(heap.group(1)):,.0f} B)" if heap else "")
            table.append(("bytes per binding, one control (resident set)", f"{format_count(count)} bindings", shown, value,
                          *goal(count, BINDING_GOALS["bytes"], f"≤ {BINDING_GOALS['bytes']} B")))
    for implementation, measure, key, unit in [(BIND, "a bind (setValue), time per call", "bind", "ns"),
                                               (REMOVE, "removeAllValues(), the whole call", "remove", "s")]:
        for count, row in bindings:
            value = number(row.get("ns_per_op_median"))
            if row["implementation"] == implementation and value is not None:
                limit = BINDING_GOALS[key]
                table.append((measure, f"{format_count(count)} bindings", seconds(value), value,
                              *goal(count, limit, f"≤ {seconds(limit)}")))
    for row in rows:
        value = number(row.get("bytes_per_control"))
        if value is not None:
            controls = number(params_of(row).get("controls"))
            what = STEPS.sub("", str(row.get("implementation", "?")).removeprefix("Control() with 2 bindings")).strip(" ,")
            at = f"{format_count(controls)} controls" if controls else ""
            table.append(("bytes per control (2 bindings)" + (f", {what}" if what else ", bound"), at, f"{value:,.0f} B", value,
                          f"≤ {CONTROL_GOAL:,} B", CONTROL_GOAL))
    return table


def memory_chart(run):
    """The table, or (None, why not) when the run has no memory rows with bytes."""
    table = table_rows(run)
    if not any(limit is not None or "bytes" in measure for measure, *_, limit in table):
        return None, "no `memory` rows with bytes_per_binding or bytes_per_control"
    title = "Memory at scale: bytes per binding and per control, and their goals"
    subtitles = [
        "The memory scenario of make bench, through the public API. Resident set growth per binding or control;",
        "the resident set grows by whole pages, so a small count reads coarsely (the malloc heap's growth beside it).",
        "Each goal applies where a figure stands in the goal column; a goal in brackets is checked at another count.",
    ]
    body, y = header(title, subtitles)
    y += 20
    body += [text(x, y, label, font_weight="bold", css_class="column") for x, label in COLUMNS if label]
    body.append(line(20, y + 6, WIDTH - 20, y + 6, stroke=INK))
    for measure, at, shown, value, goal_text, limit in table:
        y += 22
        body.append(text(20, y, measure, css_class="measure"))
        body.append(text(470, y, at, css_class="at"))
        body.append(text(590, y, shown, font_weight="bold", css_class="value"))
        body.append(text(760, y, goal_text, fill=MUTED if limit is None else INK, css_class="goal"))
        if limit is not None:
            body.append(text(890, y, "met" if value <= limit else "missed", font_weight="bold", css_class="verdict"))
        body.append(line(20, y + 7, WIDTH - 20, y + 7, stroke=GRID))
    return svg_document(y + 60, title, body + footer(run.provenance(), y + 32), width=WIDTH), None
