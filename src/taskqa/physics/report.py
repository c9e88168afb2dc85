"""Reports of the physics family, built on ``taskqa.reports``."""

from __future__ import annotations

from collections.abc import Sequence

from taskqa.physics.ceg import GraphStatistics
from taskqa.physics.comparison import PAPER_TABLE_1, ProtocolAgreement
from taskqa.physics.events import DetectorConfig, MatchCounts
from taskqa.physics.scoring import TypeScore
from taskqa.reports import Heading, Paragraph, Report, Table


def detector_report(
    counts: MatchCounts, scenes: int, tolerance: int, config: DetectorConfig
) -> Report:
    report = Report("Rule-based collision detector against simulated collisions")
    report.add(
        Paragraph(
            f"{scenes} scenes. A detected collision matches a simulated one when it names the "
            f"same two objects within {tolerance} frames (one-to-one). Detector: close when "
            f"every coordinate differs by less than {config.close_distance} m; close runs "
            f"longer than {config.together_frames} frames without a jolt are moving together; "
            f"otherwise a collision when both velocities change by more than "
            f"{config.velocity_change} m/s across the run."
        ),
        Table(
            ["Simulated", "Detected", "Matched", "Precision", "Recall", "F1"],
            [
                [
                    counts.actual,
                    counts.detected,
                    counts.true_positives,
                    counts.precision,
                    counts.recall,
                    counts.f1,
                ]
            ],
            digits=3,
        ),
    )
    return report


def statistics_table(stats: GraphStatistics, caption: str) -> Table:
    rows: list[list[str | int | float | None]] = [
        ["graphs", stats.graphs],
        ["nodes per graph (mean)", stats.mean_nodes],
        ["edges per graph (mean)", stats.mean_edges],
        ["positive edges per graph (mean)", stats.mean_positive_edges],
        ["negative edges per graph (mean)", stats.mean_negative_edges],
    ]
    if stats.mean_score is not None:
        rows.append(["rater score (mean)", stats.mean_score])
    return Table(["Statistic", "Value"], rows, caption=caption, digits=2)


def histogram_table(name: str, histogram: dict[int, int]) -> Table:
    return Table([name, "Count"], [[key, value] for key, value in histogram.items()])


def ceg_report(
    stats: GraphStatistics,
    agreement: Sequence[ProtocolAgreement],
    ratings: str,
    threshold: float,
    pairs: int,
    counterfactual_runs: int,
) -> Report:
    report = Report("Causal event graphs of simulated scenes")
    report.add(
        Paragraph(f"Ratings: {ratings}. Binarization: aggregated score >= {threshold:g}."),
        Heading("Graph statistics"),
        statistics_table(stats, "The CLEVRER-Humans paper reports 4.71 nodes and 12.7 edges."),
        histogram_table("Rater score", stats.score_histogram),
        histogram_table("Nodes", stats.node_histogram),
        Heading("Human versus machine causal labels (supplementary Table 1)"),
        Paragraph(
            f"{pairs} ordered event pairs (cause strictly earlier); counterfactual labels from "
            f"{counterfactual_runs} extra simulations. The paper's columns are real human "
            "ratings on CLEVRER videos, for reading side by side only."
        ),
        Table(
            [
                "Y",
                "P(Human | Y)",
                "P(Y | Human)",
                "Y positives",
                "paper P(Human | Y)",
                "paper P(Y | Human)",
            ],
            [
                [
                    row.protocol,
                    row.p_human_given_protocol,
                    row.p_protocol_given_human,
                    row.protocol_positives,
                    *PAPER_TABLE_1[row.protocol],
                ]
                for row in agreement
            ],
            digits=2,
        ),
    )
    return report


def real_ceg_report(stats: GraphStatistics, source: str) -> Report:
    report = Report("Causal event graphs recovered from released CLEVRER-Humans questions")
    report.add(
        Paragraph(
            f"Source: {source}. The released QA keeps only the edges sampled into questions: a "
            "correct choice is a positive edge and a wrong choice a negative edge. Nodes are the "
            "events named in the scene's questions and choices. The full graphs (paper: 4.71 "
            "nodes, 12.7 edges on average) are distributed separately and are not in this file."
        ),
        statistics_table(stats, "Graded scores are not in the file, so no score statistics."),
        histogram_table("Nodes", stats.node_histogram),
        histogram_table("Edges", stats.edge_histogram),
    )
    return report


def score_report(rows: Sequence[TypeScore], title: str, note: str) -> Report:
    report = Report(title)
    report.add(
        Paragraph(note),
        Table(
            ["Question type", "Questions", "Per-question acc.", "Options", "Per-option acc."],
            [
                [row.question_type, row.questions, row.per_question, row.options, row.per_option]
                for row in rows
            ],
            digits=3,
        ),
    )
    return report
