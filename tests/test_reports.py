import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from taskqa.reports import (
    Figure,
    Heading,
    Paragraph,
    Report,
    Table,
    to_html,
    to_markdown,
    write_report,
)

PNG = b"\x89PNG\r\n\x1a\nfake"


def test_report_renders_tables_and_figures_in_both_formats(tmp_path: Path) -> None:
    report = Report("Results").add(
        Heading("Accuracy"),
        Paragraph("Most likely <baseline> & friends."),
        Table(
            ["category", "model a", "model b"], [["world|state", 51.234, None], ["intent", 7, 0.5]]
        ),
        Figure("bars", PNG, "Accuracy per category"),
    )
    markdown = to_markdown(report)
    assert "| world\\|state | 51.2 | - |" in markdown
    assert "|---|---:|---:|" in markdown
    assert "![Accuracy per category](figures/bars.png)" in markdown
    page = to_html(report)
    assert "&lt;baseline&gt; &amp; friends" in page
    assert "data:image/png;base64," in page
    paths = write_report(report, tmp_path / "out")
    assert sorted(p.name for p in paths) == ["bars.png", "report.html", "report.md"]
    assert (tmp_path / "out" / "figures" / "bars.png").read_bytes() == PNG


# --- the figures of the build and evaluation reports ---------------------------------------------

IDENTIFIER = re.compile(r"[A-Za-z0-9_]+")


def _figures(report: Report) -> list[Figure]:
    return [block for block in report.blocks if isinstance(block, Figure)]


def test_a_figure_without_a_caption_is_titled_in_words() -> None:
    report = Report("r").add(Figure("answer_share_before", PNG))
    assert "![Answer share before](figures/answer_share_before.png)" in to_markdown(report)
    assert "<figcaption>Answer share before</figcaption>" in to_html(report)
    assert "answer_share_before</figcaption>" not in to_html(report)


def _distributions() -> tuple[dict[str, dict[str, int]], dict[str, dict[str, int]]]:
    """Before: type c largest, then a, b, d; after balancing the order by size is d, a, b and c
    is gone, so each figure ordered by its own sizes would list other rows."""
    before = {
        "a$world$action$verify": {"yes": 30, "no": 10},
        "b$world$state$query": {"open": 20, "closed": 10},
        "c$intent$action$query": {"make-tea": 50, "make-salad": 20},
        "d$world$object$verify": {"yes": 12, "no": 11},
    }
    after = {
        "a$world$action$verify": {"yes": 10, "no": 10},
        "b$world$state$query": {"open": 8, "closed": 7},
        "d$world$object$verify": {"yes": 11, "no": 11},
    }
    return before, after


def _build_report() -> Report:
    from taskqa.benchmark.report import build_report

    before, after = _distributions()
    counts = Counter({"descriptive": 5})
    diagnostics = {"normal": {"out_of_vocabulary": {"val": 0.0, "test": 0.0}, "baselines": {}}}
    return build_report(before, after, counts, counts, {"normal": {"train": 1}}, diagnostics, 0.2)


def test_build_report_figures_have_human_captions() -> None:
    figures = _figures(_build_report())
    assert [f.name for f in figures] == ["answers_before", "answers_after"]
    for figure in figures:
        assert figure.caption and not IDENTIFIER.fullmatch(figure.caption), figure.caption
        assert figure.name not in figure.caption
    assert "before balancing" in figures[0].caption and "after balancing" in figures[1].caption


def test_before_and_after_figures_list_the_same_rows_in_the_same_order() -> None:
    from taskqa.benchmark.diagnostics import type_label
    from taskqa.benchmark.report import distribution_figures

    before, after = _distributions()
    rows = []
    for figure in distribution_figures(before, after):
        (axes,) = figure.axes
        rows.append([label.get_text() for label in axes.get_yticklabels()])
        low, high = axes.get_ylim()
        assert (low, high) == (len(before) - 0.5, -0.5)  # the first row on top, none cut off
    largest_first = ["c$intent$action$query", "a$world$action$verify", "b$world$state$query",
                     "d$world$object$verify"]  # fmt: skip
    assert rows[0] == rows[1] == [type_label(kind) for kind in largest_first]


def _models(names: list[str], groups: list[str]) -> list[dict[str, Any]]:
    cell = {"accuracy": 0.5, "ci95": [0.4, 0.6], "questions": 10}
    return [{"name": n, "breakdowns": {"reference": {g: cell for g in groups}}} for n in names]


@pytest.mark.parametrize(
    "names",
    [
        ["most-likely", "text-only", "text-embedding"],
        [
            "most-likely",
            "text-only",
            "a-rather-long-model-name-v2",
            "gpt-4o-mini-2024-07-18",
            "Human (rater-01)",
        ],
    ],  # fmt: skip
)
def test_the_chart_legend_overlaps_neither_the_chart_nor_itself(names: list[str]) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from taskqa.evaluation.report import _bars

    figure = _bars(_models(names, ["direct", "indirect"]), "reference")  # the narrowest chart
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    (axes,) = figure.axes
    (legend,) = figure.legends
    chart = axes.get_tightbbox(renderer)  # the axes with their tick labels
    texts = [text.get_window_extent(renderer) for text in legend.get_texts()]
    assert [t.get_text() for t in legend.get_texts()] == names
    for index, box in enumerate(texts):
        assert box.y1 <= chart.y0, "a legend entry overlaps the chart or its labels"
        assert box.x0 >= 0 and box.x1 <= figure.bbox.x1, "a legend entry is cut off"
        for other in texts[index + 1 :]:
            assert not box.overlaps(other), "two legend entries overlap"


def test_evaluation_chart_captions_are_words() -> None:
    from types import SimpleNamespace

    from taskqa.evaluation.report import CHARTS, _caption
    from taskqa.questions.tags import BREAKDOWNS

    known = SimpleNamespace(table=SimpleNamespace(breakdowns=[
        SimpleNamespace(name=name, caption=caption) for name, caption, _ in BREAKDOWNS
    ]))  # fmt: skip
    unknown = SimpleNamespace(table=SimpleNamespace(breakdowns=[]))
    for evaluation in (known, unknown):
        for name in CHARTS:
            caption = _caption(evaluation, name)  # type: ignore[arg-type]
            assert not caption.startswith(name) and "_" not in caption, caption
