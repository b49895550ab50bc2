"""The judge card's plots, as hand-written inline SVG like the rest of the report (``plots.py``): a chart of
values with their 95 % intervals against a reference line, and a scatter of two measurements whose points open
their items. Every label is escaped here; callers pass plain text."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from debate_eval.tasks.analysis.report.plots import HEIGHT, MARGIN, PALETTE, WIDTH, _axis_labels, _frame, esc


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
