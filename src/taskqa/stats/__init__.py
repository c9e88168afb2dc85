"""Corpus statistics as tables and plots, after the EgoTaskQA supplementary (docs/stats.md)."""

from taskqa.stats.compute import compute_stats
from taskqa.stats.model import (
    AnnotationStats,
    AttributeValues,
    CorpusStats,
    CountSummary,
    DurationSummary,
    ProcedureStats,
    RelationCount,
    RelationTriple,
)
from taskqa.stats.plots import render_plots
from taskqa.stats.report import (
    render_markdown,
    render_stats_tables,
    write_stats,
)

__all__ = [
    "AnnotationStats",
    "AttributeValues",
    "CorpusStats",
    "CountSummary",
    "DurationSummary",
    "ProcedureStats",
    "RelationCount",
    "RelationTriple",
    "compute_stats",
    "render_markdown",
    "render_plots",
    "render_stats_tables",
    "write_stats",
]
