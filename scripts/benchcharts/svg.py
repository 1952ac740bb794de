"""SVG primitives, the log scale and number formats shared by the charts."""

import math
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
# A goal is drawn in black, dashed, in every chart.
GOAL_DASH = "5 3"
# A white outline behind text that crosses grid lines, lines or bars.
HALO = {"stroke": "#ffffff", "stroke_width": 4, "stroke_linejoin": "round", "paint_order": "stroke"}


class LogScale:
    """Maps [lo, hi] (positive) to pixels [start, end] logarithmically.

    Base 2: the domain runs from one power of 2 to another, a tick at each (thinned out past
    `most`). Base 10: from one 1, 2 or 5 × 10^k to another, ticks at 1, 2 and 5 × 10^k over at
    most four decades, at the powers of 10 beyond."""

    def __init__(self, lo, hi, start, end, base, most=11):
        self.base, self.most = base, most
        if base == 10:
            self.lo, self.hi = snap_down(lo), snap_up(hi)
        else:
            self.lo, self.hi = snap_power(lo, 2, math.floor), snap_power(hi, 2, math.ceil)
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


def format_limit(value):
    """A goal's limit as the goal states it: 0.05×, 1.8×, 10×."""
    return f"{value:g}×"


def svg_document(height, title, body, width=WIDTH):
    """A standalone SVG document: white background, the chart's title as its <title>."""
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height:.0f}" '
        f'viewBox="0 0 {width} {height:.0f}" font-family={quoteattr(FONT)} font-size="12" fill="{INK}">\n'
        f"<title>{escape(title)}</title>\n"
        f'<rect width="100%" height="100%" fill="#ffffff"/>\n' + "\n".join(body) + "\n</svg>\n"
    )


def text(x, y, content, size=12, anchor="start", css_class=None, **attributes):
    """A <text> element; extra attributes by keyword (underscores become hyphens)."""
    extra = "".join(f" {k.replace('_', '-')}={quoteattr(str(v))}" for k, v in attributes.items())
    if css_class:
        extra += f" class={quoteattr(css_class)}"
    return f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}"{extra}>{escape(content)}</text>'


def line(x1, y1, x2, y2, stroke=GRID, width=1, dash=None, css_class=None):
    """A <line> element."""
    dashed = f' stroke-dasharray="{dash}"' if dash else ""
    named = f" class={quoteattr(css_class)}" if css_class else ""
    return f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{stroke}" stroke-width="{width}"{dashed}{named}/>'


def rect(x, y, width, height, fill, css_class=None):
    """A filled <rect> element."""
    named = f" class={quoteattr(css_class)}" if css_class else ""
    return f'<rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{height:.1f}" fill="{fill}"{named}/>'


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
    """The provenance lines (dates, machine), small, from y down."""
    return [text(20, y + 15 * i, content, size=11, fill=MUTED, css_class="provenance") for i, content in enumerate(lines)]


def text_width(content, size=12):
    """A rough width of the text in pixels (the viewer's sans-serif font is not known)."""
    return len(content) * size * 0.56
