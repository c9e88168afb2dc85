"""Minimal pairs: one change to a simulated episode, the same question text, another answer."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from taskqa.answers import normalize_answer
from taskqa.benchmark.balance import BalanceConfig
from taskqa.benchmark.build import BuildConfig, build_benchmark
from taskqa.benchmark.folder import Benchmark
from taskqa.convert import read_recordings
from taskqa.evaluation.baselines.oracle import oracle_predictions
from taskqa.model import Outcome
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import run_episode, simulate_corpus, write_simulated_corpus
from taskqa.simulation.domain import Domain
from taskqa.simulation.intervene import KINDS, replay, variants

CONFIG = SimulationConfig(episodes=12, seed=5)


def test_replaying_an_unchanged_trace_gives_the_same_recording(domain: Domain) -> None:
    for index in range(6):
        run = run_episode(domain, CONFIG, index)
        start = {name: dict(view.attributes) for name, view in run.trace.initial.items()}
        again = replay(run, run.trace.actions, start)
        assert again is not None
        assert run.recording(again) == run.recording()


def test_each_intervention_changes_one_thing(domain: Domain) -> None:
    seen: Counter[str] = Counter()
    for index in range(CONFIG.episodes):
        run = run_episode(domain, CONFIG, index)
        first = run.recording()
        for variant in variants(run, per_kind=2, seed=0):
            second, kind = variant.recording, variant.intervention.kind
            seen[kind] += 1
            assert second.id.startswith(f"{first.id}~{kind}")
            assert second.duration == first.duration  # same clip windows
            texts_first = [(a.agent, a.verb, repr(a.slots), a.outcome) for a in first.actions]
            texts_second = [(a.agent, a.verb, repr(a.slots), a.outcome) for a in second.actions]
            if kind == "skip":
                assert len(texts_second) == len(texts_first) - 1
                assert Counter(texts_first) - Counter(texts_second) != Counter()
            elif kind == "fail":
                changed = [(a, b) for a, b in zip(texts_first, texts_second, strict=True) if a != b]
                assert len(changed) == 1 and changed[0][1][3] is Outcome.FAILED
            elif kind == "reorder":
                assert sorted(map(repr, texts_first)) == sorted(map(repr, texts_second))
                assert texts_first != texts_second
            elif kind == "initial-state":
                assert texts_first == texts_second
                differs = [
                    n
                    for n in first.initial_state
                    if first.initial_state[n] != second.initial_state.get(n)
                ]
                assert len(differs) == 1
    assert set(seen) == set(KINDS)
    # seeded: the same run gives the same second recordings
    run = run_episode(domain, CONFIG, 3)
    assert [v.recording for v in variants(run, 2, 0)] == [v.recording for v in variants(run, 2, 0)]


@pytest.fixture(scope="module")
def paired(tmp_path_factory: pytest.TempPathFactory, domain: Domain) -> Path:
    root = tmp_path_factory.mktemp("pairs")
    write_simulated_corpus(root / "corpus", CONFIG, simulate_corpus(CONFIG, domain), domain)
    balance = BalanceConfig(target=800, balance_by="type")
    build_benchmark(root / "corpus", root / "bench", BuildConfig(balance=balance, pairs=True))
    return root / "bench"


def test_a_pair_is_one_text_with_two_answers_in_one_split(paired: Path) -> None:
    bench = Benchmark(paired)
    pairs = bench.pairs()
    assert len(pairs) >= 30
    questions = {
        q.id: q for split in ("train", "val", "test") for q in bench.questions("pairs", split)
    }
    assert len(questions) == 2 * len(pairs)  # every question in one pair only
    kinds = Counter(p["intervention"]["kind"] for p in pairs)
    assert {"skip", "reorder"} <= set(kinds)
    recordings = {r.id for r in read_recordings(bench.corpus_dir)[0]}
    for pair in pairs:
        a, b = questions[pair["a"]], questions[pair["b"]]
        assert a.question.question == b.question.question == pair["question"]
        assert a.question.template == b.question.template
        assert normalize_answer(a.question.answer) != normalize_answer(b.question.answer)
        assert a.split == b.split == pair["split"]
        assert a.question.recording == pair["recording_a"] in recordings
        assert b.question.recording == pair["recording_b"] in recordings
        assert a.question.evidence and b.question.evidence  # audited like every question
    diagnostics = json.loads((paired / "diagnostics" / "diagnostics.json").read_text())
    blind = diagnostics["pairs"]["blind"]
    for name in ("most likely", "question text", "text classifier"):
        assert blind[name]["pair_accuracy"] == 0.0  # one text, two answers: never both


def test_the_oracle_gets_every_pair_and_evaluate_says_so(paired: Path, tmp_path: Path) -> None:
    from taskqa.evaluation.evaluate import evaluate, results_json
    from taskqa.evaluation.metrics import BootstrapConfig
    from taskqa.evaluation.report import build_report

    bench = Benchmark(paired)
    test = bench.questions("pairs", "test") or bench.questions("pairs", "train")
    split = "pairs/test" if bench.questions("pairs", "test") else "pairs/train"
    answers = oracle_predictions(bench, test)
    assert answers == [q.question.answer for q in test]
    file = tmp_path / "oracle.jsonl"
    file.write_text(
        "".join(
            json.dumps({"question_id": q.id, "prediction": a}) + "\n"
            for q, a in zip(test, answers, strict=True)
        )
    )
    blind = tmp_path / "same-answer.jsonl"  # a blind model: one answer per text
    first: dict[str, str] = {}
    blind.write_text(
        "".join(
            json.dumps(
                {
                    "question_id": q.id,
                    "prediction": first.setdefault(q.question.question, q.question.answer),
                }
            )
            + "\n"
            for q in test
        )
    )
    evaluation = evaluate(bench, split, [file, blind], None, BootstrapConfig(20, 0), False)
    results = results_json(evaluation)
    oracle, same = results["models"]
    assert oracle["pairs"]["all"]["pair_accuracy"] == 1.0
    assert same["pairs"]["all"]["pair_accuracy"] == 0.0
    assert 0 < same["accuracy"] <= 0.5  # right on one side of a pair at most
    report = build_report(evaluation, results)
    assert any(getattr(block, "name", "") == "minimal_pair" for block in report.blocks)


def test_pairs_are_the_same_for_any_number_of_workers(paired: Path, tmp_path: Path) -> None:
    from taskqa.execution import Execution

    corpus = paired.parent / "corpus"
    balance = BalanceConfig(target=800, balance_by="type")
    build_benchmark(
        corpus,
        tmp_path / "again",
        BuildConfig(balance=balance, pairs=True),
        workers=2,
        execution=Execution(workers=2),
    )
    assert (tmp_path / "again" / "pairs.jsonl").read_bytes() == (
        paired / "pairs.jsonl"
    ).read_bytes()
    for split in ("train", "val", "test"):
        name = f"splits/pairs/{split}.jsonl"
        assert (tmp_path / "again" / name).read_bytes() == (paired / name).read_bytes()


def test_pairs_from_the_questions_generation_asked_are_the_pairs_asked_again(
    domain: Domain, tmp_path: Path
) -> None:
    """A build hands the pairs its own candidates as the first recordings' questions: the
    pairs are those found when every question is asked again."""
    from taskqa.benchmark.pairs import PairConfig, asked_by_recording, make_pairs
    from taskqa.questions.config import GenerationConfig
    from taskqa.questions.generate import generate_file
    from taskqa.questions.indirect import with_indirect
    from taskqa.questions.template import load_templates
    from taskqa.questions.world import corpus_world

    recordings = simulate_corpus(CONFIG, domain)[:3]
    generation = GenerationConfig()
    asked = tmp_path / "candidates.jsonl"  # generation adds the indirect variants itself
    generate_file(recordings, load_templates(), asked, generation, domain.templates, domain=domain)
    templates = with_indirect(load_templates())
    world = corpus_world(recordings, domain)
    settings = (recordings, domain, CONFIG, templates, generation, domain.templates, world)
    again = make_pairs(*settings, PairConfig())
    taken = make_pairs(*settings, PairConfig(), first_asked=asked_by_recording(asked))
    assert again.pairs and taken.pairs == again.pairs
    assert [r.id for r in taken.recordings] == [r.id for r in again.recordings]


# --- pairs outside `taskqa evaluate` (issue 35, item 6) ----------------------------------------


def _right_on(questions: list[Any], pairs: list[dict[str, Any]]) -> dict[str, str]:
    """Replies right on every first side and on the second side of every other pair, wrong on
    the rest: right on most questions, on half the pairs."""
    by_id = {q.id: q.question for q in questions}
    replies: dict[str, str] = {}
    for index, pair in enumerate(pairs):
        a, b = by_id[pair["a"]], by_id[pair["b"]]
        replies[a.id] = a.answer
        replies[b.id] = b.answer if index % 2 else a.answer  # the other side's answer: wrong
    return replies


def test_pairs_jsonl_names_each_pair(paired: Path) -> None:
    from taskqa.benchmark.folder import pair_id

    pairs = Benchmark(paired).pairs()
    ids = [p["id"] for p in pairs]
    assert len(set(ids)) == len(ids)
    assert all(p["id"] == pair_id(p["a"], p["b"]) for p in pairs)


def test_exports_carry_the_pairing_and_score_pairs_as_evaluate(
    paired: Path, tmp_path: Path
) -> None:
    import csv
    import importlib.util

    import pyarrow.parquet as pq
    import yaml

    from taskqa.benchmark.export_lmms import export_lmms_eval
    from taskqa.benchmark.export_vlmeval import export_vlmevalkit
    from taskqa.evaluation.evaluate import evaluate, results_json
    from taskqa.evaluation.metrics import BootstrapConfig

    bench = Benchmark(paired)
    split = "test" if bench.questions("pairs", "test") else "train"
    questions = bench.questions("pairs", split)
    pairs = [p for p in bench.pairs() if p["split"] == split]
    # the HF export: pairs.jsonl beside the data, and each row of the pairs config names its pair
    lmms = tmp_path / "lmms"
    export_lmms_eval(paired, lmms, allow_missing_videos=True)
    assert (lmms / "pairs.jsonl").read_bytes() == (paired / "pairs.jsonl").read_bytes()
    hf_split = {"test": "test", "train": "train"}[split]
    docs = pq.read_table(lmms / "data" / "pairs" / f"{hf_split}.parquet").to_pylist()
    assert [d["id"] for d in docs] == [q.id for q in questions]
    by_pair = {p["id"]: p for p in pairs}
    for doc in docs:
        pair = by_pair[doc["pair_id"]]
        side, other = ("a", "b") if doc["pair_side"] == "a" else ("b", "a")
        assert doc["id"] == pair[side] and doc["partner_id"] == pair[other]
        assert doc["intervention"] == pair["intervention"]["kind"]
        assert json.loads(doc["intervention_details"]) == pair["intervention"]
    assert "pair_id" not in pq.read_table(lmms / "data" / "normal" / "test.parquet").column_names
    # lmms-eval's pairs task: a pair metric whose aggregation groups by pair id
    task = yaml.safe_load(
        (lmms / "taskqa_pairs.yaml").read_text().replace("!function ", "function:")
    )
    assert {m["metric"]: m["aggregation"] for m in task["metric_list"]}["pair_accuracy"] == (
        "function:utils.pair_accuracy"
    )
    assert "pair_accuracy" not in (lmms / "taskqa_normal.yaml").read_text()
    spec = importlib.util.spec_from_file_location("utils", lmms / "utils.py")
    assert spec and spec.loader
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    replies = _right_on(questions, pairs)
    scored = [utils.process_results(doc, [replies[doc["id"]]]) for doc in docs]
    ours = tmp_path / "replies.jsonl"
    ours.write_text(
        "".join(json.dumps({"question_id": q, "prediction": r}) + "\n" for q, r in replies.items())
    )
    evaluation = evaluate(bench, f"pairs/{split}", [ours], None, BootstrapConfig(20, 0), False)
    model = results_json(evaluation)["models"][0]
    lmms_pairs = utils.pair_accuracy([s["pair_accuracy"] for s in scored])
    assert lmms_pairs == pytest.approx(model["pairs"]["all"]["pair_accuracy"])
    assert 0.4 < lmms_pairs < 0.6
    assert utils.mean([s["accuracy"] for s in scored]) == pytest.approx(model["accuracy"])
    # a pair with one question not asked (lmms-eval --limit) is left out
    assert utils.pair_accuracy([scored[0]["pair_accuracy"]]) == 0.0
    # VLMEvalKit's TSV names each question's pair too
    vlmeval = tmp_path / "vlmeval"
    export_vlmevalkit(paired, vlmeval, allow_missing_videos=True)
    with (vlmeval / "TaskQA_pairs.tsv").open(newline="") as stream:
        rows = list(csv.DictReader(stream, delimiter="\t"))
    if split == "test":
        assert [(r["question_id"], r["pair_id"]) for r in rows] == [
            (d["id"], d["pair_id"]) for d in docs
        ]
    assert "def evaluate" in (vlmeval / "taskqa_vlmeval.py").read_text()
    assert "pair_accuracy" in (vlmeval / "taskqa_vlmeval.py").read_text()


def test_the_dataset_card_describes_pairs(paired: Path, tmp_path: Path) -> None:
    from taskqa.benchmark.export_hf import export_hf

    export_hf(paired, tmp_path / "hf", allow_missing_videos=True)
    card = " ".join((tmp_path / "hf" / "README.md").read_text().split())
    assert "- `pairs`: minimal pairs:" in card
    assert "a pair counts right only if both its questions are right" in card
    for field in ("pair_id", "pair_side", "partner_id", "intervention"):
        assert f"`{field}` (config `pairs` only)" in card
    assert "pairs.jsonl" in card and (tmp_path / "hf" / "pairs.jsonl").is_file()
