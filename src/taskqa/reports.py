"""One report format for every taskqa family: a Markdown file and a self-contained HTML page.

A report is a title plus a list of blocks (paragraphs, tables, figures). Figures are PNG bytes:
the Markdown links them as files written beside it, the HTML page inlines them, so the page
can be mailed or attached to a paper's supplement on its own.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from taskqa.atomic import write_bytes, write_text

Cell = str | int | float | None


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Table:
    headers: Sequence[str]
    rows: Sequence[Sequence[Cell]]
    caption: str = ""
    digits: int = 1


@dataclass(frozen=True)
class Figure:
    name: str  # file name stem, e.g. "accuracy_by_type"
    png: bytes
    caption: str = ""  # what the reader sees; without one, the name in words (``title``)

    @property
    def title(self) -> str:
        """The caption, or the file name made readable ("accuracy_by_type": "Accuracy by
        type"): a report never shows a reader an identifier."""
        if self.caption:
            return self.caption
        words = self.name.replace("_", " ").replace("-", " ").strip()
        return words[:1].upper() + words[1:]


Block = Paragraph | Heading | Table | Figure


@dataclass
class Report:
    title: str
    blocks: list[Block] = field(default_factory=list)

    def add(self, *blocks: Block) -> Report:
        self.blocks.extend(blocks)
        return self


def format_cell(value: Cell, digits: int = 1) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def to_markdown(report: Report, figure_dir: str = "figures") -> str:
    lines = [f"# {report.title}", ""]
    for block in report.blocks:
        if isinstance(block, Heading):
            lines += ["#" * block.level + " " + block.text, ""]
        elif isinstance(block, Paragraph):
            lines += [block.text, ""]
        elif isinstance(block, Table):
            lines += _markdown_table(block)
        else:
            lines += [f"![{block.title}]({figure_dir}/{block.name}.png)", ""]
            lines += [f"*{block.title}*", ""]
    return "\n".join(lines).rstrip() + "\n"


def _markdown_table(table: Table) -> list[str]:
    def escape(text: str) -> str:
        return text.replace("|", "\\|")

    lines = []
    if table.caption:
        lines += [f"**{table.caption}**", ""]
    lines.append("| " + " | ".join(escape(h) for h in table.headers) + " |")
    lines.append("|" + "|".join(["---"] + ["---:"] * (len(table.headers) - 1)) + "|")
    for row in table.rows:
        cells = [escape(format_cell(cell, table.digits)) for cell in row]
        lines.append("| " + " | ".join(cells) + " |")
    return [*lines, ""]


_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem}"
    "table{border-collapse:collapse;margin:1rem 0}"
    "th,td{border:1px solid #ccc;padding:.25rem .6rem}td{text-align:right}"
    "td:first-child,th:first-child{text-align:left}th{background:#f3f3f3}"
    "figure{margin:1rem 0}img{max-width:100%}"
)


def to_html(report: Report) -> str:
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(report.title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{html.escape(report.title)}</h1>",
    ]
    for block in report.blocks:
        if isinstance(block, Heading):
            level = min(max(block.level, 2), 6)
            parts.append(f"<h{level}>{html.escape(block.text)}</h{level}>")
        elif isinstance(block, Paragraph):
            parts.append(f"<p>{inline_html(block.text)}</p>")
        elif isinstance(block, Table):
            parts.append(_html_table(block))
        else:
            data = base64.b64encode(block.png).decode("ascii")
            caption = html.escape(block.title)
            parts.append(
                f'<figure><img alt="{caption}" src="data:image/png;base64,{data}">'
                f"<figcaption>{caption}</figcaption></figure>"
            )
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


# A paragraph's Markdown emphasis and code, as the HTML page shows them (escaped first, so that
# nothing else of the text can become markup): "**a**", "*a*" and "`a`" were shown with their
# marks. An asterisk beside a space ("close * cupboard") is no emphasis, as in Markdown.
_STRONG = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_EMPHASIS = re.compile(r"(?<![*\w])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![*\w])")
_CODE = re.compile(r"`([^`]+)`")


def inline_html(text: str) -> str:
    """``text`` escaped for HTML, with its ``**strong**``, ``*emphasis*`` and ``code`` marked up."""
    marked = _CODE.sub(r"<code>\1</code>", html.escape(text))
    marked = _STRONG.sub(r"<strong>\1</strong>", marked)
    return _EMPHASIS.sub(r"<em>\1</em>", marked)


def _html_table(table: Table) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in table.headers)
    body = "".join(
        "<tr>"
        + "".join(f"<td>{html.escape(format_cell(c, table.digits))}</td>" for c in row)
        + "</tr>"
        for row in table.rows
    )
    caption = f"<caption>{html.escape(table.caption)}</caption>" if table.caption else ""
    return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def write_report(report: Report, out_dir: Path, stem: str = "report") -> list[Path]:
    """Write ``stem.md``, ``stem.html`` and the figures under ``out_dir``; return the paths."""
    figures = [block for block in report.blocks if isinstance(block, Figure)]
    written = []
    for figure in figures:
        path = out_dir / "figures" / f"{figure.name}.png"
        write_bytes(path, figure.png)
        written.append(path)
    markdown = out_dir / f"{stem}.md"
    page = out_dir / f"{stem}.html"
    write_text(markdown, to_markdown(report))
    write_text(page, to_html(report))
    return [markdown, page, *written]
