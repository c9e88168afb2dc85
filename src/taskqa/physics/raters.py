"""Graded causal judgments: simulated raters, imported ratings, quality checks, majority votes.

Simulated raters stand in when no human ratings exist. Their agreement model is explicit and
configurable: each event pair gets one shared latent verdict ("responsible" or not) whose
probability depends on the two machine labels (heuristic, counterfactual); each rater then
reports a score drawn around that verdict, or, with probability ``1 - agreement``, a uniformly
random score. Anything computed from them describes the model, not people.

Imported judgments are a JSON object with three lists (see ``JudgmentFile``): graded edge
judgments, node-correctness votes, and quality-check items with the expected score. A rater's
work is accepted only if every quality-check item they answered is within ``tolerance`` of the
expected score; node descriptions are kept when the accepted raters' majority says they are right.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from taskqa.jsonio import load_json
from taskqa.physics.causal_labels import PairLabels
from taskqa.physics.ceg import CausalEventGraph
from taskqa.problems import InvalidInputError, Problem, problems_from_validation_error

ScoreTable = tuple[tuple[int, float], ...]  # (score, weight) pairs
CAUSAL_SCORES: ScoreTable = ((3, 0.1), (4, 0.4), (5, 0.5))
NOT_CAUSAL_SCORES: ScoreTable = ((1, 0.5), (2, 0.3), (3, 0.2))


@dataclass(frozen=True)
class RaterModel:
    """How simulated raters score a pair, given the pair's two machine labels."""

    raters: int = 3
    agreement: float = 0.85
    # P(latent verdict "responsible" | heuristic label, counterfactual label)
    p_responsible: dict[tuple[bool, bool], float] = field(
        default_factory=lambda: {
            (True, True): 0.9,
            (True, False): 0.55,
            (False, True): 0.5,
            (False, False): 0.05,
        }
    )
    # The scores a rater gives when following a "responsible" or "not responsible" verdict.
    causal_scores: ScoreTable = CAUSAL_SCORES
    not_causal_scores: ScoreTable = NOT_CAUSAL_SCORES

    def describe(self) -> str:
        rates = ", ".join(
            f"heuristic={h}, counterfactual={c}: {p:.2f}"
            for (h, c), p in sorted(self.p_responsible.items(), reverse=True)
        )
        return (
            f"{self.raters} simulated raters; P(responsible | labels) = {rates}; each rater "
            f"follows the shared verdict with probability {self.agreement:.2f}, otherwise "
            "scores uniformly at random"
        )


def _draw(rng: random.Random, table: Sequence[tuple[int, float]]) -> int:
    scores, weights = zip(*table, strict=True)
    drawn: int = rng.choices(scores, weights=weights)[0]
    return drawn


def simulate_ratings(
    graph: CausalEventGraph,
    pairs: Sequence[PairLabels],
    model: RaterModel,
    rng: random.Random,
) -> None:
    """Add every simulated rater's score for every pair to ``graph`` (nodes indexed as pairs)."""
    for pair in pairs:
        responsible = rng.random() < model.p_responsible[(pair.heuristic, pair.counterfactual)]
        for _ in range(model.raters):
            if rng.random() < model.agreement:
                table = model.causal_scores if responsible else model.not_causal_scores
                score = _draw(rng, table)
            else:
                score = rng.randint(1, 5)
            graph.add_score(graph.nodes[pair.cause], graph.nodes[pair.effect], score)


# --- imported judgments -------------------------------------------------------------------------


class EdgeJudgment(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rater: str
    scene_index: int = Field(ge=0)
    cause: str
    effect: str
    score: int = Field(ge=1, le=5)


class NodeJudgment(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rater: str
    scene_index: int = Field(ge=0)
    event: str
    correct: bool


class QualityCheck(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scene_index: int = Field(ge=0)
    cause: str
    effect: str
    expected: int = Field(ge=1, le=5)


class JudgmentFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    edge_judgments: list[EdgeJudgment]
    node_judgments: list[NodeJudgment] = Field(default_factory=list)
    quality_checks: list[QualityCheck] = Field(default_factory=list)


def read_judgments(path: Path) -> JudgmentFile:
    return parse_judgments(load_json(path), path.name)


def parse_judgments(raw: Any, file: str) -> JudgmentFile:
    try:
        judgments = JudgmentFile.model_validate(raw)
    except ValidationError as error:
        raise InvalidInputError(problems_from_validation_error(file, [], error)) from None
    problems = judgment_problems(file, judgments)
    if problems:
        raise InvalidInputError(problems)
    return judgments


@dataclass(frozen=True)
class ImportResult:
    graphs: list[CausalEventGraph]
    accepted_raters: list[str]
    rejected_raters: list[str]
    dropped_nodes: list[tuple[int, str]]  # (scene index, description) voted incorrect


def accepted_raters(judgments: JudgmentFile, tolerance: int = 1) -> tuple[list[str], list[str]]:
    """Raters whose quality-check answers all lie within ``tolerance`` of the expected scores.

    When the file has quality-check items, a rater who answered none of them is rejected too:
    their work cannot be checked.
    """
    expected = {(q.scene_index, q.cause, q.effect): q.expected for q in judgments.quality_checks}
    answered: dict[str, list[bool]] = defaultdict(list)
    for judgment in judgments.edge_judgments:
        answered.setdefault(judgment.rater, [])
        key = (judgment.scene_index, judgment.cause, judgment.effect)
        if key in expected:
            answered[judgment.rater].append(abs(judgment.score - expected[key]) <= tolerance)
    accepted: list[str] = []
    rejected: list[str] = []
    for rater, checks in sorted(answered.items()):
        ok = all(checks) and (bool(checks) or not expected)
        (accepted if ok else rejected).append(rater)
    return accepted, rejected


def majority_nodes(judgments: JudgmentFile, raters: set[str]) -> set[tuple[int, str]]:
    """(scene, description) pairs that the majority of accepted raters marked incorrect."""
    votes: dict[tuple[int, str], int] = defaultdict(int)
    for vote in judgments.node_judgments:
        if vote.rater in raters:
            votes[(vote.scene_index, vote.event)] += 1 if vote.correct else -1
    # A tie keeps the node: only a majority against it removes a description.
    return {key for key, balance in votes.items() if balance < 0}


def import_judgments(judgments: JudgmentFile, tolerance: int = 1) -> ImportResult:
    accepted, rejected = accepted_raters(judgments, tolerance)
    dropped = majority_nodes(judgments, set(accepted))
    checks = {(q.scene_index, q.cause, q.effect) for q in judgments.quality_checks}
    graphs: dict[int, CausalEventGraph] = {}
    for judgment in judgments.edge_judgments:
        key = (judgment.scene_index, judgment.cause, judgment.effect)
        if judgment.rater not in accepted or key in checks:
            continue
        if (judgment.scene_index, judgment.cause) in dropped:
            continue
        if (judgment.scene_index, judgment.effect) in dropped:
            continue
        graph = graphs.setdefault(judgment.scene_index, CausalEventGraph(judgment.scene_index, []))
        graph.add_score(judgment.cause, judgment.effect, judgment.score)
    return ImportResult(
        graphs=[graphs[index] for index in sorted(graphs)],
        accepted_raters=accepted,
        rejected_raters=rejected,
        dropped_nodes=sorted(dropped),
    )


def judgment_problems(file: str, judgments: JudgmentFile) -> list[Problem]:
    """Edges whose cause and effect are the same description cannot be meant."""
    return [
        Problem.at(file, ["edge_judgments", index], "cause and effect are the same event")
        for index, judgment in enumerate(judgments.edge_judgments)
        if judgment.cause == judgment.effect
    ]
