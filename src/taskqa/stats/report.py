"""Corpus statistics as files (stats.json, stats.md, PNG plots) and as terminal tables."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from rich.table import Table

from taskqa.atomic import write_bytes, write_text
from taskqa.model import UNKNOWN
from taskqa.stats.model import CorpusStats
from taskqa.stats.plots import render_plots

STATS_JSON = "stats.json"
STATS_MARKDOWN = "stats.md"
TERMINAL_VERBS = 15
MAX_HISTOGRAM_ROWS = 20


def write_stats(stats: CorpusStats, out_dir: Path) -> list[Path]:
    """Write stats.json, stats.md and the plots into ``out_dir``; return the paths written.

    Each file is replaced atomically, so an interrupted run leaves every file either old or new.
    """
    files: dict[str, bytes] = {
        STATS_JSON: (stats.model_dump_json(indent=2) + "\n").encode("utf-8"),
        STATS_MARKDOWN: render_markdown(stats).encode("utf-8"),
        **render_plots(stats),
    }
    written: list[Path] = []
    for name, data in files.items():
        path = out_dir / name
        if name.endswith(".png"):
            write_bytes(path, data)
        else:
            write_text(path, data.decode("utf-8"))
        written.append(path)
    return written


# --- Markdown -------------------------------------------------------------------------------


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|")


def _table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines.extend("| " + " | ".join(_cell(v) for v in row) + " |" for row in rows)
    return [*lines, ""]


def _percent(ratio: float) -> str:
    return f"{ratio:.1%}"


def _binned(histogram: dict[int, int]) -> list[tuple[str, int]]:
    """One row per value, or equal-width ranges when that would make a long table."""
    if len(histogram) <= MAX_HISTOGRAM_ROWS:
        return [(str(value), count) for value, count in histogram.items()]
    low, high = min(histogram), max(histogram)
    width = -(-(high - low + 1) // MAX_HISTOGRAM_ROWS)  # ceiling division
    rows: list[tuple[str, int]] = []
    for start in range(low, high + 1, width):
        end = min(start + width - 1, high)
        count = sum(n for value, n in histogram.items() if start <= value <= end)
        rows.append((f"{start}-{end}" if end > start else str(start), count))
    return rows


def _summary_rows(stats: CorpusStats) -> list[tuple[str, object]]:
    actions = stats.actions_per_recording
    agents = stats.agents_per_recording
    duration = stats.duration_seconds
    notes = stats.annotations
    return [
        ("recordings", stats.recordings),
        ("actions", stats.actions),
        (
            "actions per recording (mean / min / max)",
            f"{actions.mean} / {actions.min} / {actions.max}",
        ),
        ("agents per recording (mean / min / max)", f"{agents.mean} / {agents.min} / {agents.max}"),
        ("total duration (s)", duration.total),
        (
            "duration per recording (mean / min / max, s)",
            f"{duration.mean} / {duration.min} / {duration.max}",
        ),
        ("verbs", len(stats.verbs)),
        ("object snapshots", notes.object_snapshots),
        ("agent snapshots", notes.agent_snapshots),
        ("attribute annotations on objects", notes.attribute_annotations),
        ("unknown annotations", f"{notes.unknown_annotations} ({_percent(notes.unknown_share)})"),
        ("attribute changes", sum(stats.attribute_changes.values())),
        ("spatial relation changes", stats.spatial_relation_changes),
    ]


def _attribute_rows(stats: CorpusStats) -> list[tuple[object, ...]]:
    rows: list[tuple[object, ...]] = []
    for row in stats.attribute_values:
        values = ", ".join(
            f"{value} {row.counts[value]} ({_percent(row.ratios[value])})"
            for value in row.counts
            if value != UNKNOWN
        )
        rows.append(
            (
                row.attribute.value,
                row.kind.value,
                row.annotations,
                values,
                f"{row.counts[UNKNOWN]} ({_percent(row.ratios[UNKNOWN])})",
                stats.attribute_changes[row.attribute],
            )
        )
    return rows


def render_markdown(stats: CorpusStats) -> str:
    procedures = stats.procedures
    lines = ["# Corpus statistics", ""]
    lines += ["## Summary", "", *_table(("metric", "value"), _summary_rows(stats))]
    lines += ["## Recordings", ""]
    lines += _table(("source", "recordings"), stats.sources.items())
    if stats.environments:
        lines += _table(("environment", "recordings"), stats.environments.items())
    if stats.episode_types:
        lines += _table(("episode type", "recordings"), stats.episode_types.items())
    lines += _table(("agents", "recordings"), stats.agents_per_recording.histogram.items())
    lines += _table(("actions", "recordings"), _binned(stats.actions_per_recording.histogram))
    lines += ["## Verbs", "", *_table(("verb", "actions"), stats.verbs.items())]
    lines += ["## Relationships", "", "Snapshots holding each relation (once per snapshot).", ""]
    lines += _table(("kind", "snapshots"), ((k.value, n) for k, n in stats.relation_kinds.items()))
    lines += _table(
        ("relation", "kind", "snapshots"),
        ((r.relation, r.kind.value, r.count) for r in stats.relations),
    )
    lines += ["Most frequent (subject, relation, object) triples:", ""]
    lines += _table(
        ("subject", "relation", "object", "kind", "snapshots"),
        (
            (t.subject, t.relation, t.object or "-", t.kind.value, t.count)
            for t in stats.top_relation_triples
        ),
    )
    lines += [
        "## Attributes",
        "",
        "Values over object snapshots, before and after each action.",
        "",
    ]
    lines += _table(
        ("attribute", "kind", "annotations", "values", "unknown", "changes"),
        _attribute_rows(stats),
    )
    lines += ["## Procedures", ""]
    lines += _table(
        ("metric", "value"),
        (
            ("procedures", procedures.procedures),
            ("step executions", procedures.steps),
            ("missing steps", procedures.missing_steps),
            ("steps with errors", procedures.steps_with_errors),
            ("recordings with errors", procedures.recordings_with_errors),
        ),
    )
    lines += _table(
        ("error tag", "steps"), ((t.value, n) for t, n in procedures.error_tags.items())
    )
    return "\n".join(lines).rstrip("\n") + "\n"


# --- Terminal -------------------------------------------------------------------------------


def render_stats_tables(stats: CorpusStats) -> list[Table]:
    """Rich tables for the terminal: the headline numbers, without the long tails."""
    return [
        _summary_table(stats),
        _verbs_table(stats),
        _relations_table(stats),
        _attributes_table(stats),
        _procedures_table(stats),
    ]


# The name the brief used; the CLI calls the plural.


def _summary_table(stats: CorpusStats) -> Table:
    table = Table(title="Corpus")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for name, value in _summary_rows(stats):
        table.add_row(name, str(value))
    if stats.episode_types:
        kinds = ", ".join(f"{k} {n}" for k, n in stats.episode_types.items())
        table.add_row("episode types", kinds)
    return table


def _verbs_table(stats: CorpusStats) -> Table:
    table = Table(title=f"Verbs (top {TERMINAL_VERBS} of {len(stats.verbs)})")
    table.add_column("verb")
    table.add_column("actions", justify="right")
    for verb, count in list(stats.verbs.items())[:TERMINAL_VERBS]:
        table.add_row(verb, str(count))
    return table


def _relations_table(stats: CorpusStats) -> Table:
    table = Table(title="Relationships (snapshots holding each)")
    table.add_column("relation")
    table.add_column("kind")
    table.add_column("snapshots", justify="right")
    for row in stats.relations:
        table.add_row(row.relation, row.kind.value, str(row.count))
    return table


def _attributes_table(stats: CorpusStats) -> Table:
    table = Table(title="Attributes (object snapshots)")
    for name in ("attribute", "kind", "annotations", "values", "unknown", "changes"):
        table.add_column(name, justify="right" if name in ("annotations", "changes") else "left")
    for row in _attribute_rows(stats):
        table.add_row(*(str(v) for v in row))
    return table


def _procedures_table(stats: CorpusStats) -> Table:
    procedures = stats.procedures
    table = Table(title="Procedures")
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_row("procedures", str(procedures.procedures))
    table.add_row("step executions", str(procedures.steps))
    table.add_row("missing steps", str(procedures.missing_steps))
    table.add_row("steps with errors", str(procedures.steps_with_errors))
    table.add_row("recordings with errors", str(procedures.recordings_with_errors))
    for tag, count in procedures.error_tags.items():
        table.add_row(tag.value, str(count))
    return table
