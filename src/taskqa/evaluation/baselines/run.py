"""One entry point for the offline baselines: name -> predictions for a split."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any

from taskqa.benchmark.folder import Benchmark, SplitQuestion, parse_split_name


class BaselineName(StrEnum):
    most_likely = "most-likely"
    text_only = "text-only"
    text_embedding = "text-embedding"
    oracle = "oracle"
    noisy_oracle = "noisy-oracle"
    chat = "chat"


def offline_predictions(
    name: BaselineName,
    benchmark: Benchmark,
    split: str,
    questions: Sequence[SplitQuestion],
    flip: float = 0.0,
    seed: int = 0,
    on_progress: Callable[[int], None] | None = None,
) -> tuple[list[str | None], dict[str, Any]]:
    """Predictions of an offline baseline and the settings that made them (the sidecar meta)."""
    family, _ = parse_split_name(split)
    meta: dict[str, Any] = {"baseline": name.value, "trained_on": f"{family}/train"}
    train = benchmark.questions(family, "train")
    predicted: list[str | None]
    if name is BaselineName.most_likely:
        from taskqa.evaluation.baselines.most_likely import most_likely_predictions

        predicted = list(most_likely_predictions(train, questions))
    elif name in (BaselineName.text_only, BaselineName.text_embedding):
        from taskqa.evaluation.baselines import text_only

        features = (
            text_only.tfidf_features
            if name is BaselineName.text_only
            else text_only.embedding_features
        )
        predicted = list(text_only.classify(train, questions, features))
        meta["classifier"] = {
            "model": "logistic regression (lbfgs)",
            "C": text_only.REGULARIZATION,
            "features": "tfidf word 1-2 grams"
            if name is BaselineName.text_only
            else "MiniLM-L6 int8",
        }
    elif name in (BaselineName.oracle, BaselineName.noisy_oracle):
        from taskqa.evaluation.baselines.oracle import oracle_predictions

        rate = flip if name is BaselineName.noisy_oracle else 0.0
        predicted = oracle_predictions(benchmark, questions, rate, seed, on_progress)
        meta.pop("trained_on")
        meta.update({"flip": rate, "seed": seed})
    else:
        raise ValueError(f"{name.value} is not an offline baseline")
    return predicted, meta
