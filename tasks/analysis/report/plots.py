"""Plots as hand-written inline SVG: scatter with jitter, grouped and stacked bars, a confusion matrix, a
reliability diagram, a ranking; for the judge card a chart of values with their 95 % intervals against a
reference line and a scatter of two measurements whose points open their items.

Hand-written rather than matplotlib: the page stays small (a few kB a plot instead of tens), the points can
carry the item they stand for (hover shows it, a click opens its transcript), the text is real text that
follows the page's font and can be searched, and there is no font cache or backend to set up in CI.
Every label is escaped here; callers pass plain text.
"""

from __future__ import annotations

import html
import math
import random
from collections.abc import Callable, Mapping, Sequence

HUMAN_COLOUR = "#333333"
PALETTE = ("#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb")
MOVE_COLOURS = {
    "towards": "#228833",
    "away": "#ee6677",
    "unchanged": "#bbbbbb",
    "same distance": "#ccbb44",
    "changed": "#4477aa",
    "no score": "#444444",
}
WIDTH, HEIGHT, MARGIN = 360, 260, 44


def run_colour(index: int) -> str:
    """The colour of the ``index``-th run (or judge) of a page, the palette repeating."""
    return PALETTE[index % len(PALETTE)]


def esc(text: object) -> str:
    """Text escaped for SVG/HTML content and attributes."""
    return html.escape(str(text), quote=True)


def _frame(title: str, body: list[str], width: int = WIDTH, height: int = HEIGHT) -> str:
    return (
        f'<svg class="plot" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{esc(title)}</title>'
        f'<text x="{width / 2}" y="14" class="ptitle" text-anchor="middle">{esc(title)}</text>'
        + "".join(body)
        + "</svg>"
    )


def _axis_labels(x_label: str, y_label: str, x_middle: float) -> list[str]:
    """The x axis's label under the plot (centred on ``x_middle``) and the y axis's, turned up, at its left."""
    return [
        f'<text x="{x_middle}" y="{HEIGHT - 8}" text-anchor="middle">{esc(x_label)}</text>',
        f'<text x="12" y="{HEIGHT / 2}" transform="rotate(-90 12 {HEIGHT / 2})" text-anchor="middle">{esc(y_label)}'
        "</text>",
    ]


def _axis_ticks(values: Sequence[float], to_px: Callable[[float], float], horizontal: bool, at: float) -> list[str]:
    out = []
    for value in values:
        pos = to_px(value)
        label = f"{value:g}"
        if horizontal:
            out.append(f'<line x1="{pos:.1f}" x2="{pos:.1f}" y1="{at}" y2="{at + 4}" class="axis"/>')
            out.append(f'<text x="{pos:.1f}" y="{at + 15}" text-anchor="middle">{esc(label)}</text>')
        else:
            out.append(f'<line x1="{at - 4}" x2="{at}" y1="{pos:.1f}" y2="{pos:.1f}" class="axis"/>')
            out.append(f'<text x="{at - 6}" y="{pos + 4:.1f}" text-anchor="end">{esc(label)}</text>')
    return out


MAX_POINTS = 2000  # points a scatter draws (an even sample beyond)


def scatter(
    title: str,
    points: Sequence[tuple[float, float, str, str]],
    low: float,
    high: float,
    colour: str = PALETTE[0],
    jitter: float = 0.12,
) -> str:
    """Predicted (y) against human (x) scores; each point is (human, predicted, item key, hover text).

    Points are jittered (fixed seed) so equal pairs do not hide each other; the diagonal is y = x. More than
    ``MAX_POINTS`` points: an even sample of them is drawn, and the title says how many (a page stays small).
    """
    if len(points) > MAX_POINTS:
        total = len(points)
        points = [points[i * total // MAX_POINTS] for i in range(MAX_POINTS)]
        title = f"{title} ({MAX_POINTS:,} of {total:,} items drawn)"
    rng = random.Random(453)
    span = (high - low) or 1.0
    low_px, high_px = MARGIN, WIDTH - 12

    def x_px(v: float) -> float:
        return low_px + (v - low + 0.5) / (span + 1) * (high_px - low_px)

    def y_px(v: float) -> float:
        return HEIGHT - MARGIN - (v - low + 0.5) / (span + 1) * (HEIGHT - MARGIN - 24)

    body = [
        f'<line x1="{x_px(low - 0.5):.1f}" y1="{y_px(low - 0.5):.1f}" x2="{x_px(high + 0.5):.1f}" '
        f'y2="{y_px(high + 0.5):.1f}" class="diag"/>',
        f'<line x1="{MARGIN}" x2="{high_px}" y1="{HEIGHT - MARGIN}" y2="{HEIGHT - MARGIN}" class="axis"/>',
        f'<line x1="{MARGIN}" x2="{MARGIN}" y1="24" y2="{HEIGHT - MARGIN}" class="axis"/>',
    ]
    ticks = [low + i for i in range(int(span) + 1)]
    body += _axis_ticks(ticks, x_px, True, HEIGHT - MARGIN)
    body += _axis_ticks(ticks, y_px, False, MARGIN)
    body += _axis_labels("human score", "predicted score", (MARGIN + high_px) / 2)
    for human, predicted, key, hover in points:
        jx, jy = rng.uniform(-jitter, jitter), rng.uniform(-jitter, jitter)
        body.append(
            f'<circle cx="{x_px(human + jx):.1f}" cy="{y_px(predicted + jy):.1f}" r="3.5" fill="{colour}" '
            f'class="pt" data-key="{esc(key)}"><title>{esc(hover)}</title></circle>'
        )
    if not points:
        body.append(f'<text x="{WIDTH / 2}" y="{HEIGHT / 2}" text-anchor="middle">no scored item</text>')
    return _frame(title, body)


def grouped_bars(
    title: str,
    bins: Sequence[int | str],
    series: Mapping[str, Sequence[float]],
    colours: Sequence[str] | None = None,
    unit: str = "%",
    x_label: str = "score (rounded half up)",
) -> str:
    """Bars per bin, one colour per series (e.g. humans and each run), values in ``unit``, with gridlines;
    ``x_label`` names the bins."""
    names = list(series)
    colours = list(colours or [run_colour(i) for i in range(len(names))])
    top = max([v for values in series.values() for v in values] + [1e-9])
    plot_w, plot_h = WIDTH - MARGIN - 12, HEIGHT - MARGIN - 40
    slot = plot_w / max(len(bins), 1)
    bar = slot * 0.8 / max(len(names), 1)
    base = HEIGHT - MARGIN
    body = [f'<line x1="{MARGIN}" x2="{WIDTH - 12}" y1="{base}" y2="{base}" class="axis"/>']
    for fraction in (0.5, 1.0):
        y = base - fraction * plot_h
        body.append(f'<line x1="{MARGIN}" x2="{WIDTH - 12}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>')
        body.append(f'<text x="{MARGIN - 4}" y="{y + 4:.1f}" text-anchor="end">{top * fraction:.0f}{esc(unit)}</text>')
    for b_index, label in enumerate(bins):
        x0 = MARGIN + b_index * slot + slot * 0.1
        body.append(f'<text x="{x0 + slot * 0.4:.1f}" y="{base + 14}" text-anchor="middle">{esc(label)}</text>')
        for s_index, name in enumerate(names):
            value = series[name][b_index]
            h = value / top * plot_h
            body.append(
                f'<rect x="{x0 + s_index * bar:.1f}" y="{base - h:.1f}" width="{bar - 1:.1f}" height="{h:.1f}" '
                f'fill="{colours[s_index]}"><title>{esc(name)}, score {esc(label)}: {value:.1f}{esc(unit)}</title>'
                "</rect>"
            )
    body += _legend(names, colours)
    body.append(f'<text x="{(MARGIN + WIDTH) / 2}" y="{HEIGHT - 8}" text-anchor="middle">{esc(x_label)}</text>')
    return _frame(title, body)


def stacked_bars(title: str, columns: Sequence[str], stacks: Sequence[Mapping[str, int]]) -> str:
    """One stacked bar per column (e.g. debate round) with the count of each kind (colours: MOVE_COLOURS)."""
    kinds = [k for k in MOVE_COLOURS if any(k in s for s in stacks)]
    kinds += sorted({k for s in stacks for k in s} - set(kinds))
    top = max([sum(s.values()) for s in stacks] + [1])
    plot_w, plot_h = WIDTH - MARGIN - 12, HEIGHT - MARGIN - 40
    slot = plot_w / max(len(columns), 1)
    body = [f'<line x1="{MARGIN}" x2="{WIDTH - 12}" y1="{HEIGHT - MARGIN}" y2="{HEIGHT - MARGIN}" class="axis"/>']
    for index, (label, stack) in enumerate(zip(columns, stacks, strict=True)):
        x, y = MARGIN + index * slot + slot * 0.2, HEIGHT - MARGIN
        body.append(
            f'<text x="{x + slot * 0.3:.1f}" y="{HEIGHT - MARGIN + 14}" text-anchor="middle">{esc(label)}</text>'
        )
        for kind in kinds:
            count = stack.get(kind, 0)
            if not count:
                continue
            h = count / top * plot_h
            y -= h
            colour = MOVE_COLOURS.get(kind, PALETTE[-1])
            body.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{slot * 0.6:.1f}" height="{h:.1f}" fill="{colour}">'
                f"<title>{esc(label)}: {esc(kind)} {count}</title></rect>"
            )
            if h > 11:
                body.append(
                    f'<text x="{x + slot * 0.3:.1f}" y="{y + h / 2 + 4:.1f}" text-anchor="middle" '
                    f'class="inbar">{count}</text>'
                )
    body += _legend(kinds, [MOVE_COLOURS.get(k, PALETTE[-1]) for k in kinds])
    return _frame(title, body)


def confusion(
    title: str,
    rows: Sequence[str],
    columns: Sequence[str],
    counts: Mapping[str, Mapping[str, int]],
    row_name: str = "human",
    column_name: str = "verdict",
) -> str:
    """A confusion matrix: rows (e.g. human label) against columns (e.g. verdict), darker = more items,
    green on the diagonal."""
    cell = 48
    left, top_px = 40 + 7 * max(len(f"{row_name}: {r}") for r in rows), 46
    width, height = left + cell * len(columns) + 12, top_px + cell * len(rows) + 30
    top = max([counts.get(r, {}).get(c, 0) for r in rows for c in columns] + [1])
    body = [f'<text x="{left + cell * len(columns) / 2}" y="32" text-anchor="middle">{esc(column_name)}</text>']
    for c_index, column in enumerate(columns):
        body.append(
            f'<text x="{left + c_index * cell + cell / 2}" y="{top_px - 4}" text-anchor="middle">{esc(column)}</text>'
        )
    for r_index, row in enumerate(rows):
        y = top_px + r_index * cell
        body.append(f'<text x="{left - 6}" y="{y + cell / 2 + 4}" text-anchor="end">{esc(row_name)}: {esc(row)}</text>')
        for c_index, column in enumerate(columns):
            count = counts.get(row, {}).get(column, 0)
            shade = 0.08 + 0.85 * count / top
            colour = "#228833" if row == column else "#4477aa"
            x = left + c_index * cell
            body.append(
                f'<rect x="{x}" y="{y}" width="{cell - 2}" height="{cell - 2}" fill="{colour}" '
                f'fill-opacity="{shade:.2f}">'
                f"<title>{esc(row_name)} {esc(row)}, {esc(column_name)} {esc(column)}: {count}</title></rect>"
                f'<text x="{x + cell / 2 - 1}" y="{y + cell / 2 + 4}" text-anchor="middle">{count}</text>'
            )
    return _frame(title, body, width=max(width, 200), height=height)


def _legend(names: Sequence[str], colours: Sequence[str]) -> list[str]:
    out, x = [], MARGIN
    for name, colour in zip(names, colours, strict=True):
        out.append(f'<rect x="{x}" y="22" width="9" height="9" fill="{colour}"/>')
        out.append(f'<text x="{x + 12}" y="30" class="legend">{esc(name)}</text>')
        x += 18 + 6.2 * len(str(name))
    return out


def reliability(
    title: str,
    points: Sequence[tuple[float, float, int]],
    curve: Sequence[tuple[float, float]],
    judge_range: tuple[float, float],
    human_range: tuple[float, float],
    colour: str = PALETTE[0],
) -> str:
    """A reliability diagram: per bin of the judge's score (x), the mean human rating (y) of its items, a circle
    whose area follows the bin's size; the fitted monotone map (``curve``, judge score -> human scale) as a
    line; the dashed diagonal where the judge's score would read as the human rating (same scale only)."""
    (x_low, x_high), (y_low, y_high) = judge_range, human_range
    x_span, y_span = (x_high - x_low) or 1.0, (y_high - y_low) or 1.0
    left, right, top, bottom = MARGIN, WIDTH - 12, 24, HEIGHT - MARGIN

    def x_px(v: float) -> float:
        return left + (v - x_low) / x_span * (right - left)

    def y_px(v: float) -> float:
        return bottom - (v - y_low) / y_span * (bottom - top)

    body = [
        f'<line x1="{left}" x2="{right}" y1="{bottom}" y2="{bottom}" class="axis"/>',
        f'<line x1="{left}" x2="{left}" y1="{top}" y2="{bottom}" class="axis"/>',
    ]
    if judge_range == human_range:
        body.append(
            f'<line x1="{x_px(x_low):.1f}" y1="{y_px(y_low):.1f}" x2="{x_px(x_high):.1f}" y2="{y_px(y_high):.1f}" '
            'class="diag"/>'
        )
    body += _axis_ticks(_even_ticks(x_low, x_high), x_px, True, bottom)
    body += _axis_ticks(_even_ticks(y_low, y_high), y_px, False, left)
    body += _axis_labels("judge score", "mean human rating", (left + right) / 2)
    if curve:
        path = " ".join(f"{x_px(x):.1f},{y_px(y):.1f}" for x, y in curve)
        body.append(f'<polyline points="{path}" fill="none" stroke="{HUMAN_COLOUR}" stroke-width="1.5"/>')
    largest = max([n for _, _, n in points] + [1])
    for score, human, n in points:
        radius = 2.5 + 6.0 * (n / largest) ** 0.5
        body.append(
            f'<circle cx="{x_px(score):.1f}" cy="{y_px(human):.1f}" r="{radius:.1f}" fill="{colour}" '
            f'fill-opacity="0.7"><title>{esc(f"judge {score:.3g}: mean human {human:.3g} over {n} item(s)")}'
            "</title></circle>"
        )
    return _frame(title, body)


def _even_ticks(low: float, high: float) -> list[float]:
    span = high - low
    step = 1.0 if span <= 6 else 2.0 if span <= 12 else span / 5
    if span < 2:
        step = 0.25 if span <= 1 else 0.5
    count = round(span / step)
    return [low + i * step for i in range(count + 1)]


def ranking(
    title: str, rows: Sequence[tuple[str, float, Sequence[float] | None, Sequence[int]]], colour: str = PALETTE[0]
) -> str:
    """Systems from best to worst, each its mean with its 95 % interval and the ranks it can hold.

    ``rows``: (system, mean, [low, high] or None, [best rank, worst rank]), drawn top to bottom in the given
    order; the interval is a line through the mean's dot (in ``colour``), the rank set is written at the right
    (``1`` or ``2–5``).
    """
    line_height, top, left, right = 18, 30, 110, 70
    width = WIDTH + 120
    height = top + line_height * max(len(rows), 1) + 30
    values = [v for _, mean, interval, _ in rows for v in [mean, *(interval or [])]]
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    pad = (high - low) * 0.05 or 0.5
    low, high = low - pad, high + pad

    def x_px(v: float) -> float:
        return left + (v - low) / (high - low) * (width - left - right)

    body = [f'<text x="{width - right + 8}" y="{top - 8}" class="axis-label">ranks</text>']
    for index, (name, mean, interval, ranks) in enumerate(rows):
        y = top + line_height * index + line_height / 2
        body.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{esc(name)}</text>')
        if interval:
            body.append(
                f'<line x1="{x_px(interval[0]):.1f}" x2="{x_px(interval[1]):.1f}" y1="{y:.1f}" y2="{y:.1f}" '
                f'stroke="{colour}" stroke-width="2" class="ci-bar"/>'
            )
        span = f"{ranks[0]}" if ranks[0] == ranks[1] else f"{ranks[0]}–{ranks[1]}"
        hover = f"{name}: {mean:.3f}" + (f" [{interval[0]:.3f}, {interval[1]:.3f}]" if interval else "")
        body.append(
            f'<circle cx="{x_px(mean):.1f}" cy="{y:.1f}" r="4" fill="{colour}" class="pt system">'
            f"<title>{esc(hover + f'; ranks {span}')}</title></circle>"
        )
        body.append(f'<text x="{width - right + 8}" y="{y + 4:.1f}" class="rank-set">{esc(span)}</text>')
    axis_y = top + line_height * max(len(rows), 1) + 4
    body.append(f'<line x1="{left}" x2="{width - right}" y1="{axis_y}" y2="{axis_y}" class="axis"/>')
    step = (high - low) / 4
    body += _axis_ticks([round(low + step * i, 2) for i in range(5)], x_px, True, axis_y)
    return _frame(title, body, width=width, height=height + 10)


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` round tick values from ``low`` to ``high``."""
    span = (high - low) or 1.0
    step = 10 ** math.floor(math.log10(span / count))
    for factor in (1, 2, 2.5, 5, 10):
        if span / (step * factor) <= count:
            step *= factor
            break
    first = math.ceil(low / step) * step
    return [round(first + i * step, 10) for i in range(int((high - first) / step + 1e-9) + 1)]


def intervals_chart(
    title: str,
    rows: Sequence[tuple[str, float | None, Sequence[float] | None, str]],
    low: float,
    high: float,
    reference: float | None = None,
    reference_label: str = "",
) -> str:
    """One row per (label, value, [lo, hi] or None, colour): a dot at the value and a whisker over the interval,
    on a shared axis from ``low`` to ``high``, with a dashed line at ``reference``."""
    left, right = 150, WIDTH + 60 - 16
    height = 44 + 24 * len(rows) + 26
    width = WIDTH + 60

    def x(value: float) -> float:
        clipped = min(max(value, low), high)
        return left + (clipped - low) / ((high - low) or 1.0) * (right - left)

    body = []
    axis_y = height - 26
    body.append(f'<line x1="{left}" x2="{right}" y1="{axis_y}" y2="{axis_y}" class="axis"/>')
    for tick in _ticks(low, high):
        body.append(f'<line x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="30" y2="{axis_y}" class="grid"/>')
        body.append(f'<text x="{x(tick):.1f}" y="{axis_y + 14}" text-anchor="middle">{tick:g}</text>')
    if reference is not None:
        body.append(f'<line x1="{x(reference):.1f}" x2="{x(reference):.1f}" y1="26" y2="{axis_y}" class="diag"/>')
        if reference_label:
            body.append(f'<text x="{x(reference) + 3:.1f}" y="36" class="legend">{esc(reference_label)}</text>')
    for index, (label, value, interval, colour) in enumerate(rows):
        y = 52 + 24 * index
        short = label if len(label) <= 24 else label[:23] + "…"
        body.append(
            f'<text x="{left - 8}" y="{y + 4}" text-anchor="end"><title>{esc(label)}</title>{esc(short)}</text>'
        )
        if interval:
            body.append(
                f'<line x1="{x(interval[0]):.1f}" x2="{x(interval[1]):.1f}" y1="{y}" y2="{y}" stroke="{colour}" '
                'stroke-width="2"/>'
            )
            for end in interval:
                body.append(f'<line x1="{x(end):.1f}" x2="{x(end):.1f}" y1="{y - 5}" y2="{y + 5}" stroke="{colour}"/>')
        if value is None:
            body.append(f'<text x="{left + 4}" y="{y + 4}">undefined</text>')
            continue
        ci = f" [{interval[0]:.3f}, {interval[1]:.3f}]" if interval else ""
        body.append(
            f'<circle cx="{x(value):.1f}" cy="{y}" r="4.5" fill="{colour}"><title>{esc(label)}: {value:.3f}{esc(ci)}'
            "</title></circle>"
        )
    return _frame(title, body, width=width, height=height)


def xy_scatter(
    title: str,
    points: Sequence[tuple[float, float, str, str]],
    x_label: str,
    y_label: str,
    colour: str = PALETTE[0],
    diagonal: bool = False,
    jitter: float = 0.0,
) -> str:
    """Points (x, y, item key, hover text) on linear axes; a click on a point opens its item (class ``pt``,
    ``data-key`` as in ``plots.scatter``). ``diagonal``: the line y = x."""
    if not points:
        return _frame(title, [f'<text x="{WIDTH / 2}" y="{HEIGHT / 2}" text-anchor="middle">no points</text>'])
    rng = random.Random(453)
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    x_low, x_high = min(xs), max(xs)
    y_low, y_high = min(ys), max(ys)
    if diagonal:
        x_low = y_low = min(x_low, y_low)
        x_high = y_high = max(x_high, y_high)
    x_span, y_span = (x_high - x_low) or 1.0, (y_high - y_low) or 1.0
    x_low, x_high, y_low, y_high = (
        x_low - 0.05 * x_span,
        x_high + 0.05 * x_span,
        y_low - 0.1 * y_span,
        y_high + 0.1 * y_span,
    )
    plot_left, plot_right, plot_top, plot_bottom = MARGIN, WIDTH - 12, 24, HEIGHT - MARGIN

    def px(value: float) -> float:
        return plot_left + (value - x_low) / (x_high - x_low) * (plot_right - plot_left)

    def py(value: float) -> float:
        return plot_bottom - (value - y_low) / (y_high - y_low) * (plot_bottom - plot_top)

    body = [
        f'<line x1="{plot_left}" x2="{plot_right}" y1="{plot_bottom}" y2="{plot_bottom}" class="axis"/>',
        f'<line x1="{plot_left}" x2="{plot_left}" y1="{plot_top}" y2="{plot_bottom}" class="axis"/>',
    ]
    if diagonal:
        body.append(
            f'<line x1="{px(x_low):.1f}" y1="{py(x_low):.1f}" x2="{px(x_high):.1f}" y2="{py(x_high):.1f}" '
            'class="diag"/>'
        )
    for tick in _ticks(x_low, x_high):
        body.append(f'<text x="{px(tick):.1f}" y="{plot_bottom + 14}" text-anchor="middle">{tick:g}</text>')
    for tick in _ticks(y_low, y_high):
        body.append(f'<text x="{plot_left - 4}" y="{py(tick) + 4:.1f}" text-anchor="end">{tick:g}</text>')
    body += _axis_labels(x_label, y_label, (plot_left + plot_right) / 2)
    for x_value, y_value, key, hover in points:
        jx = rng.uniform(-jitter, jitter) * x_span if jitter else 0.0
        jy = rng.uniform(-jitter, jitter) * y_span if jitter else 0.0
        body.append(
            f'<circle cx="{px(x_value + jx):.1f}" cy="{py(y_value + jy):.1f}" r="3.5" fill="{colour}" class="pt" '
            f'data-key="{esc(key)}"><title>{esc(hover)}</title></circle>'
        )
    return _frame(title, body)
