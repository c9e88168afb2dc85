"""PNG plots of corpus statistics, after Figs. 1 and 2 of the EgoTaskQA supplementary.

Figures are built on matplotlib's object API with an Agg canvas rather than through pyplot:
that needs no display, leaves the process-wide backend alone and keeps no global figure state.
The PNG bytes depend only on the statistics: the default style is forced (a user's matplotlibrc
cannot leak in), figure size and dpi are fixed, and the "Software" text chunk, which names the
matplotlib version, is dropped.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence

import matplotlib.style
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from taskqa.model import UNKNOWN, AttributeKind, RelationKind
from taskqa.stats.model import AttributeValues, CorpusStats

DPI = 100
WIDTH = 8.0
ROW_HEIGHT = 0.24  # inches per bar in the horizontal bar charts
MAX_VERBS = 50
MIN_LABELLED_RATIO = 0.06  # narrower stacked segments get no text: it would not fit

RELATION_COLORS: dict[RelationKind, str] = {
    RelationKind.SPATIAL: "#1f77b4",
    RelationKind.ACTING: "#ff7f0e",
    RelationKind.MULTI_AGENT: "#2ca02c",
}
ATTRIBUTE_KIND_COLORS: dict[AttributeKind, str] = {
    AttributeKind.VISIBILITY: "#9467bd",
    AttributeKind.AFFORDANCE: "#8c564b",
    AttributeKind.STATUS: "#17becf",
}
SPATIAL_CHANGE_COLOR = RELATION_COLORS[RelationKind.SPATIAL]
VALUE_COLORS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860")
UNKNOWN_COLOR = "#b0b0b0"


def render_plots(stats: CorpusStats) -> dict[str, bytes]:
    """Every plot as PNG bytes, keyed by file name, in a fixed order."""
    plots: dict[str, Callable[[CorpusStats], Figure]] = {
        "relationships.png": relationships_figure,
        "attribute_values.png": attribute_values_figure,
        "attribute_changes.png": attribute_changes_figure,
        "actions_per_recording.png": actions_per_recording_figure,
        "verbs.png": verbs_figure,
    }
    rendered: dict[str, bytes] = {}
    with matplotlib.style.context("default"):
        for name, build in plots.items():
            rendered[name] = to_png(build(stats))
    return rendered


def to_png(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    FigureCanvasAgg(figure)
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def _figure(rows: int) -> tuple[Figure, Axes]:
    """A figure tall enough for ``rows`` horizontal bars; constrained layout fits long labels."""
    figure = Figure(figsize=(WIDTH, max(2.5, 1.2 + ROW_HEIGHT * rows)), layout="constrained")
    return figure, figure.add_subplot()


def _no_data(axes: Axes, title: str) -> None:
    axes.set_title(title)
    axes.text(0.5, 0.5, "no data", ha="center", va="center", transform=axes.transAxes)
    axes.set_axis_off()


def _barh(
    axes: Axes, labels: Sequence[str], values: Sequence[int], colors: Sequence[str], log: bool
) -> None:
    """Horizontal bars, first label on top, each bar labelled with its count."""
    positions = range(len(labels))
    bars = axes.barh(positions, values, color=list(colors))
    axes.set_yticks(list(positions), labels=list(labels), fontsize=8)
    axes.invert_yaxis()
    axes.set_ylim(len(labels) - 0.5, -0.5)
    if log:
        axes.set_xscale("log")
        # Room on the right for the count labels of the longest bar.
        axes.set_xlim(0.8, max(values) * 4)
    else:
        axes.set_xlim(0, max(values) * 1.15)
    axes.bar_label(bars, fmt="%d", fontsize=7, padding=2)
    axes.grid(axis="x", alpha=0.3)
    axes.set_axisbelow(True)


def relationships_figure(stats: CorpusStats) -> Figure:
    title = "Relationship frequencies (snapshots holding each relation)"
    rows = [r for r in stats.relations if r.count > 0]
    figure, axes = _figure(len(rows))
    if not rows:
        _no_data(axes, title)
        return figure
    _barh(
        axes,
        [r.relation for r in rows],
        [r.count for r in rows],
        [RELATION_COLORS[r.kind] for r in rows],
        log=True,
    )
    axes.set_title(title)
    axes.set_xlabel("snapshots (log scale)")
    present = [k for k in RelationKind if any(r.kind == k for r in rows)]
    axes.legend(
        handles=[Patch(color=RELATION_COLORS[k], label=k.value) for k in present],
        loc="lower right",
        fontsize=8,
    )
    return figure


def attribute_values_figure(stats: CorpusStats) -> Figure:
    title = "Value shares per attribute (object snapshots, before and after)"
    rows = [a for a in stats.attribute_values if a.annotations > 0]
    figure, axes = _figure(len(rows))
    if not rows:
        _no_data(axes, title)
        return figure
    for position, row in enumerate(rows):
        _stacked_row(axes, position, row)
    axes.set_yticks(range(len(rows)), labels=[_attribute_label(a) for a in rows], fontsize=8)
    axes.set_ylim(len(rows) - 0.5, -0.5)
    axes.set_xlim(0, 1)
    axes.xaxis.set_major_formatter("{x:.0%}")
    axes.set_xlabel("share of annotations; grey = unknown")
    axes.set_title(title)
    return figure


def _attribute_label(row: AttributeValues) -> str:
    return f"{row.attribute.value} (n={row.annotations})"


def _stacked_row(axes: Axes, position: int, row: AttributeValues) -> None:
    left = 0.0
    for index, (value, ratio) in enumerate(row.ratios.items()):
        if ratio <= 0:
            continue
        color = UNKNOWN_COLOR if value == UNKNOWN else VALUE_COLORS[index % len(VALUE_COLORS)]
        axes.barh(position, ratio, left=left, color=color, edgecolor="white", linewidth=0.5)
        if ratio >= MIN_LABELLED_RATIO and value != UNKNOWN:
            axes.text(
                left + ratio / 2,
                position,
                f"{value} {ratio:.0%}",
                ha="center",
                va="center",
                fontsize=7,
                color="white",
                clip_on=True,
            )
        left += ratio


def attribute_changes_figure(stats: CorpusStats) -> Figure:
    title = "Changes per attribute (known before and after values differ)"
    rows: list[tuple[str, int, str]] = [
        (attribute.value, count, ATTRIBUTE_KIND_COLORS[_kind_of(stats, attribute.value)])
        for attribute, count in stats.attribute_changes.items()
        if count > 0
    ]
    if stats.spatial_relation_changes > 0:
        rows.append(("spatial relations", stats.spatial_relation_changes, SPATIAL_CHANGE_COLOR))
    rows.sort(key=lambda row: (-row[1], row[0]))
    figure, axes = _figure(len(rows))
    if not rows:
        _no_data(axes, title)
        return figure
    _barh(axes, [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], log=True)
    axes.set_title(title)
    axes.set_xlabel("transitions (log scale); attributes that never changed are left out")
    # Name only the colours on show, in a fixed order.
    legend = [
        Patch(color=color, label=label)
        for label, color in [
            *((k.value, c) for k, c in ATTRIBUTE_KIND_COLORS.items()),
            ("spatial relations", SPATIAL_CHANGE_COLOR),
        ]
        if any(row[2] == color for row in rows)
    ]
    axes.legend(handles=legend, loc="lower right", fontsize=8)
    return figure


def _kind_of(stats: CorpusStats, attribute: str) -> AttributeKind:
    return next(a.kind for a in stats.attribute_values if a.attribute.value == attribute)


def actions_per_recording_figure(stats: CorpusStats) -> Figure:
    title = "Actions per recording"
    figure = Figure(figsize=(WIDTH, 4.0), layout="constrained")
    axes = figure.add_subplot()
    histogram = stats.actions_per_recording.histogram
    if not histogram:
        _no_data(axes, title)
        return figure
    low, high = min(histogram), max(histogram)
    # One bin per value while that stays readable, otherwise about 40 equal bins.
    bins = high - low + 1 if high - low < 40 else 40
    axes.hist(
        list(histogram),
        weights=list(histogram.values()),
        bins=bins,
        range=(low - 0.5, high + 0.5),
        color=VALUE_COLORS[0],
        edgecolor="white",
    )
    summary = stats.actions_per_recording
    axes.axvline(summary.mean, color="black", linestyle="--", linewidth=1)
    axes.set_title(f"{title} (mean {summary.mean:.1f}, min {summary.min}, max {summary.max})")
    axes.set_xlabel("actions in the recording")
    axes.set_ylabel("recordings")
    axes.grid(axis="y", alpha=0.3)
    axes.set_axisbelow(True)
    return figure


def verbs_figure(stats: CorpusStats) -> Figure:
    verbs = list(stats.verbs.items())[:MAX_VERBS]
    shown = "" if len(stats.verbs) <= MAX_VERBS else f" (top {MAX_VERBS} of {len(stats.verbs)})"
    title = f"Actions per verb{shown}"
    figure, axes = _figure(len(verbs))
    if not verbs:
        _no_data(axes, title)
        return figure
    _barh(
        axes,
        [v for v, _ in verbs],
        [n for _, n in verbs],
        [VALUE_COLORS[0]] * len(verbs),
        log=False,
    )
    axes.set_title(title)
    axes.set_xlabel("actions")
    return figure
