"""The vision-ablation audit: what each answer needs of its clip, in the build and evaluate."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from taskqa.benchmark.balance import BalanceConfig
from taskqa.benchmark.build import BuildConfig, build_benchmark
from taskqa.benchmark.evidence import (
    EVIDENCE_TAGS,
    answerable_from_one_frame,
    evidence_tags,
    time_reversed,
    with_observed,
)
from taskqa.benchmark.folder import Benchmark
from taskqa.questions.tags import evidence_groups
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus, write_simulated_corpus
from taskqa.simulation.domain import Domain


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory, domain: Domain) -> Path:
    root = tmp_path_factory.mktemp("evidence")
    config = SimulationConfig(episodes=8, seed=5)
    write_simulated_corpus(root / "corpus", config, simulate_corpus(config, domain), domain)
    return root / "corpus"


def _build(corpus: Path, out: Path, cap: float | None) -> Benchmark:
    balance = BalanceConfig(target=800, balance_by="type")  # eight episodes: too few to pair
    build_benchmark(corpus, out, BuildConfig(balance=balance, max_single_frame=cap))
    return Benchmark(out)


def _questions(bench: Benchmark) -> list:
    return [q.question for s in ("train", "val", "test") for q in bench.questions("normal", s)]


def test_the_audit_tags_what_a_template_needs(corpus: Path, tmp_path: Path) -> None:
    bench = _build(corpus, tmp_path / "bench", None)
    questions = _questions(bench)
    assert questions and all(q.evidence for q in questions)
    by_template: dict[str, list[list[str]]] = defaultdict(list)
    for q in questions:
        assert set(q.evidence) <= set(EVIDENCE_TAGS)
        frames = {"no-frame", "one-frame", "several-frames"} & set(q.evidence)
        assert len(frames) == 1, q.evidence  # exactly one frames verdict
        assert ("order-free" in q.evidence) != ("order-dependent" in q.evidence)
        by_template[q.template].append(q.evidence)
    # "what did they do right before X" needs X and the action before it, in that order
    before = by_template["descriptive/world/action-before"]
    assert before and all("several-frames" in t and "order-dependent" in t for t in before)
    # "what will they do next": the answer is in the part of the recording the clip never shows
    for template in ("predictive/intent/next-action", "predictive/world/next-changes-object"):
        assert all("no-frame" in t for t in by_template.get(template, []))
    assert any("one-frame" in q.evidence for q in questions)
    evidence = json.loads((bench.root / "diagnostics" / "diagnostics.json").read_text())["evidence"]
    assert evidence["kept"]["all"]["questions"] == len(
        {q.id for f in ("normal",) for s in ("train", "val", "test") for q in _questions(bench)}
    )
    report = (bench.root / "diagnostics" / "report.md").read_text()
    assert "What each answer needs of its clip" in report
    # the text-only baseline on the multiple-choice form, in the build's diagnostics and report
    diagnostics = json.loads((bench.root / "diagnostics" / "diagnostics.json").read_text())
    choice = diagnostics["normal"]["multiple_choice"]
    assert choice["test_items"] > 0 and 0 < choice["chance"] < 100
    assert choice["text_only_item"] == choice["text_only_circular"]  # one option text per item
    assert "text only, circular" in report
    assert evidence_groups(questions[0])[0] in {"no frame", "one frame", "several frames"}


def test_max_single_frame_caps_every_template(corpus: Path, tmp_path: Path) -> None:
    bench = _build(corpus, tmp_path / "capped", 0.25)
    questions = _questions(bench)
    by_template: dict[str, list[bool]] = defaultdict(list)
    for q in questions:
        by_template[q.template].append(answerable_from_one_frame(q.evidence))
    # the cap holds on every template of the kept set (pairs dropped whole may undershoot it)
    for template, flags in by_template.items():
        assert sum(flags) <= 0.25 * len(flags) + 1, template
    evidence = json.loads((bench.root / "diagnostics" / "diagnostics.json").read_text())["evidence"]
    assert evidence["dropped_by_cap"] > 0
    before = evidence["audited"]["all"]
    assert before["one-frame"] + before["no-frame"] > 0.25


def test_reduced_views_keep_the_clip_but_lose_what_they_drop(corpus: Path, tmp_path: Path) -> None:
    """One frame: only that action is seen; reversed: the same actions, last first, each as
    long as before; a question with no answer gets no tags."""
    from taskqa.benchmark.folder import CLIPS
    from taskqa.questions.world import CorpusWorld

    bench = _build(corpus, tmp_path / "views", None)
    world = CorpusWorld.open(bench.corpus_dir)
    clips = list(bench.clips().values())
    recording = next(r for r in world.recordings if any(c.recording == r.id for c in clips))
    mine = [c for c in clips if c.recording == recording.id]
    views = world.views(recording, mine, str(bench.root / CLIPS))
    view = max(views.values(), key=lambda v: len(v.observed))
    assert len(view.observed) >= 2
    first = with_observed(view, view.observed[:1])
    assert first.observed == view.observed[:1] and first.future == view.future
    assert view.observed[1].id not in first.by_id
    turned = time_reversed(view)
    assert [i.id for i in turned.observed] == [i.id for i in reversed(view.observed)]
    assert [round(i.end - i.start, 6) for i in turned.observed] == [
        round(i.end - i.start, 6) for i in reversed(view.observed)
    ]
    assert turned.observed[0].start == pytest.approx(view.observed[0].start)
    assert evidence_tags(lambda seen: None, view) == []
    # an answer that is the number of actions seen: no frame and one frame differ from it
    count = evidence_tags(lambda seen: str(len(seen.observed)), view)
    assert count == ["several-frames", "order-free"]
    # an answer any one frame gives (something was seen) that no frame gives
    seen_any = evidence_tags(lambda seen: "yes" if seen.observed else "no", view)
    assert seen_any == ["one-frame", "first-frame", "last-frame", "order-free"]


def test_evaluate_shows_accuracy_by_what_the_answer_needs(corpus: Path, tmp_path: Path) -> None:
    """A model right exactly on the order-free questions scores 100% there and 0% on the
    order-dependent ones, in evaluate's ``evidence`` breakdown."""
    from taskqa.evaluation.evaluate import evaluate, results_json
    from taskqa.evaluation.metrics import BootstrapConfig

    bench = _build(corpus, tmp_path / "scored", None)
    test = [q.question for q in bench.questions("normal", "test")]
    replies = tmp_path / "order-free-only.jsonl"
    replies.write_text(
        "".join(
            json.dumps(
                {
                    "question_id": q.id,
                    "prediction": q.answer if "order-free" in q.evidence else "no such answer",
                }
            )
            + "\n"
            for q in test
        )
    )
    evaluation = evaluate(bench, "normal/test", [replies], None, BootstrapConfig(20, 0), False)
    groups = results_json(evaluation)["models"][0]["breakdowns"]["evidence"]
    assert groups["order-free"]["accuracy"] == pytest.approx(1.0)
    assert groups["order-dependent"]["accuracy"] == pytest.approx(0.0)
    assert {"several frames", "order-dependent"} <= set(groups)
