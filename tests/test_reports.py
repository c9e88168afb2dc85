from pathlib import Path

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
