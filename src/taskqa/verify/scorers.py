"""Verifiers: turn an (episode, description) pair into the probability that the video carries
out the description.

Two interfaces. A ``SegmentScorer`` gives a logit for every (query, segment) pair; wrapped in an
``AlignedVerifier`` it is verified the NSG way: parse the description into a graph, find the best
alignment with the exact aligner, output sigmoid(mean logit along it). Learned scorers (CLIP-style
segment features against query text, run on GPUs) plug in here: either implement ``logits`` in
Python, or write one JSON line per pair, ``{"pair_id": ..., "logits": [[...], ...]}`` with one row
per query in the graph's step order and one column per shown segment, and load it with
``LogitsFileScorer``. A ``Verifier`` that needs no alignment (Text2Text) implements
``probability`` directly.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from taskqa.jsonio import read_jsonl_objects
from taskqa.problems import InvalidInputError, Problem
from taskqa.verify.align import best_alignment, sigmoid
from taskqa.verify.descriptions import query_matches
from taskqa.verify.graph import QueryGraph
from taskqa.verify.kitchen import Segment
from taskqa.verify.parser import DescriptionError, parse_description


@dataclass(frozen=True)
class PairView:
    """What a verifier may look at: the description and the segments shown (not the label)."""

    pair_id: str
    description: str
    segments: tuple[Segment, ...]


class SegmentScorer(Protocol):
    @property
    def name(self) -> str: ...

    def logits(self, pair: PairView, graph: QueryGraph) -> NDArray[np.float64]:
        """(queries x segments) raw logits; queries in the graph's step order."""
        ...


class Verifier(Protocol):
    @property
    def name(self) -> str: ...

    def probability(self, pair: PairView) -> float: ...


def _matches(graph: QueryGraph, segments: Sequence[Segment]) -> NDArray[np.bool_]:
    return np.array(
        [
            [query_matches(s, q.subtask, q.obj, q.receptacle) for s in segments]
            for q in graph.queries
        ],
        dtype=bool,
    ).reshape(len(graph.queries), len(segments))


@dataclass(frozen=True)
class OracleScorer:
    """Ground-truth scores: +margin where the segment carries out the query. A miss scores
    -margin * N by default, so one unmatched query pulls the mean logit below zero; with
    ``symmetric`` a miss scores -margin, which shows how NSG's mean rule lets a negative through
    when most of its queries match."""

    margin: float = 4.0
    symmetric: bool = False

    @property
    def name(self) -> str:
        return "oracle_symmetric" if self.symmetric else "oracle"

    def miss(self, graph: QueryGraph) -> float:
        return -self.margin if self.symmetric else -self.margin * len(graph.queries)

    def logits(self, pair: PairView, graph: QueryGraph) -> NDArray[np.float64]:
        matches = _matches(graph, pair.segments)
        return np.where(matches, self.margin, self.miss(graph)).astype(np.float64)


@dataclass(frozen=True)
class NoisyOracleScorer:
    """The oracle with every (query, segment) match bit flipped with probability ``flip_rate``;
    the flips are seeded per pair, so results do not depend on evaluation order."""

    flip_rate: float
    seed: int = 0
    margin: float = 4.0

    @property
    def name(self) -> str:
        return f"noisy_oracle_p{self.flip_rate:g}"

    def logits(self, pair: PairView, graph: QueryGraph) -> NDArray[np.float64]:
        matches = _matches(graph, pair.segments)
        rng = np.random.default_rng(random.Random(f"{self.seed}-{pair.pair_id}").getrandbits(64))
        flips = rng.random(matches.shape) < self.flip_rate
        noisy = matches ^ flips
        return np.where(noisy, self.margin, -self.margin * len(graph.queries)).astype(np.float64)


class LogitsFileScorer:
    """Logits computed elsewhere (a learned model on a GPU), one JSON line per pair."""

    name = "logits_file"

    def __init__(self, path: Path) -> None:
        self.table: dict[str, NDArray[np.float64]] = {}
        problems: list[Problem] = []
        for number, record in read_jsonl_objects(path):
            try:
                self.table[str(record["pair_id"])] = np.asarray(record["logits"], dtype=np.float64)
            except (KeyError, TypeError, ValueError) as error:
                problems.append(
                    Problem.at(path, [number], f"expected {{pair_id, logits}}: {error}")
                )
        if problems:
            raise InvalidInputError(problems)
        self.path = path

    def logits(self, pair: PairView, graph: QueryGraph) -> NDArray[np.float64]:
        if pair.pair_id not in self.table:
            raise InvalidInputError([Problem(self.path.name, "", f"no logits for {pair.pair_id}")])
        values = self.table[pair.pair_id]
        expected = (len(graph.queries), len(pair.segments))
        if values.shape != expected:
            message = f"logits for {pair.pair_id} have shape {values.shape}, expected {expected}"
            raise InvalidInputError([Problem(self.path.name, "", message)])
        return values


@dataclass(frozen=True)
class AlignedVerifier:
    """NSG's rule on any segment scorer: parse, align exactly, sigmoid of the mean logit."""

    scorer: SegmentScorer

    @property
    def name(self) -> str:
        return self.scorer.name

    def probability(self, pair: PairView) -> float:
        try:
            graph = parse_description(pair.description)
        except DescriptionError:
            return 0.0  # nothing to verify against
        return best_alignment(self.scorer.logits(pair, graph), graph.edges).probability


def video_caption(segments: Sequence[Segment]) -> str:
    return "\n".join(segment.caption() for segment in segments)


class Text2TextVerifier:
    """EgoTV's Text2Text baseline: cosine similarity between the description and a caption of
    the segments (objects in view and activity per segment), thresholded. The probability is a
    steep sigmoid around the threshold, so probability >= 0.5 exactly when cosine >= threshold."""

    name = "text2text"
    sharpness = 50.0

    def __init__(self, threshold: float = 0.5) -> None:
        from taskqa.embeddings import default_embedder

        self.embedder = default_embedder()
        self.threshold = threshold

    def similarities(self, pairs: Sequence[PairView]) -> list[float]:
        descriptions = [p.description for p in pairs]
        captions = [video_caption(p.segments) for p in pairs]
        unique = sorted(set(descriptions) | set(captions))  # pairs share videos and templates
        vectors = dict(zip(unique, self.embedder.embed(unique), strict=True))
        return [float(vectors[d] @ vectors[c]) for d, c in zip(descriptions, captions, strict=True)]

    def fit_threshold(self, pairs: Sequence[PairView], labels: Sequence[int]) -> float:
        """The threshold with the best accuracy on these pairs (EgoTV set it by hand)."""
        values = self.similarities(pairs)
        candidates = sorted(set(values))
        best, best_correct = self.threshold, -1
        for candidate in candidates:
            correct = sum((v >= candidate) == bool(y) for v, y in zip(values, labels, strict=True))
            if correct > best_correct:
                best, best_correct = candidate, correct
        self.threshold = best
        return best

    def probabilities(self, pairs: Sequence[PairView]) -> list[float]:
        return [sigmoid((v - self.threshold) * self.sharpness) for v in self.similarities(pairs)]

    def probability(self, pair: PairView) -> float:
        return self.probabilities([pair])[0]
