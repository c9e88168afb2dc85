"""Multiple choice that the text cannot solve: items, circular scoring, replies, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import test_evaluation_fixture
from taskqa.answers import normalize_answer
from taskqa.benchmark.folder import Benchmark
from taskqa.benchmark.multiple_choice import (
    LETTERS,
    chance,
    choice_items,
    parse_choice,
    read_choice_export,
    score_choices,
    text_answers,
    text_prior_replies,
)
from taskqa.cli import app

benchmark_dir = test_evaluation_fixture.benchmark_dir  # the shared session fixture
runner = CliRunner()


def test_distractors_are_answers_the_same_text_has_elsewhere(benchmark_dir: Path) -> None:
    bench = Benchmark(benchmark_dir)
    items = choice_items(bench, "normal", options=4, seed=3)
    questions = [q for s in ("train", "val", "test") for q in bench.questions("normal", s)]
    # distractors come from the same split: a test answer the text never has in train would
    # otherwise be the option a text reader picks
    groups = {
        (q.question.question, split): answers
        for split in ("train", "val", "test")
        for text, answers in text_answers(bench.questions("normal", split)).items()
        for q in bench.questions("normal", split)
        if q.question.question == text
    }
    answered_alike = [
        q
        for q in questions
        if q.question.answer_kind == "open" and len(groups[q.question.question, q.split]) == 1
    ]
    assert len(items) == len(questions) - len(answered_alike)
    opened = [i for i in items if i.answer_kind == "open"]
    # options are other answers of the same text: more than two where the text has them
    assert opened and any(i.rotations >= 3 for i in opened)
    for item in items:
        keys = [normalize_answer(o) for o in item.options]
        assert len(set(keys)) == len(keys), item  # no option twice
        if item.answer_kind == "binary":
            assert sorted(keys) == ["no", "yes"]
        else:
            group = groups[item.question, item.split]
            assert set(keys) <= set(group), item  # every option: this text's, in this split
            assert item.rotations == min(4, len(group)) >= 2
    by_id = {q.question.id: q.question for q in questions}
    for item in items:
        assert normalize_answer(item.options[item.answer]) == normalize_answer(
            by_id[item.question_id].answer
        )
    again = choice_items(bench, "normal", options=4, seed=3)
    assert again == items  # seeded
    other = choice_items(bench, "normal", options=4, seed=4)
    assert [i.options for i in other] != [i.options for i in items]
    with pytest.raises(ValueError, match="options must be between 2 and 8"):
        choice_items(bench, "normal", options=1)


def test_circular_scoring_gives_a_fixed_letter_nothing(benchmark_dir: Path) -> None:
    bench = Benchmark(benchmark_dir)
    items = [i for i in choice_items(bench, "normal") if i.split == "test"]
    asks = [(i, r) for i in items for r in range(i.rotations)]
    oracle = {i.ask_id(r): i.letter(r) for i, r in asks}
    scores = score_choices(items, oracle)["all"]
    assert scores["item_accuracy"] == scores["circular_accuracy"] == 1.0
    always_a = score_choices(items, {i.ask_id(r): "A" for i, r in asks})["all"]
    assert always_a["circular_accuracy"] == 0.0
    assert always_a["item_accuracy"] == pytest.approx(
        sum(i.letter(0) == "A" for i in items) / len(items), abs=1e-4
    )
    # verbose replies and option texts read as their option; a reply naming none is invalid
    verbose = {
        i.ask_id(r): (f"The answer is ({i.letter(r)})." if r % 2 else i.options[i.answer])
        for i, r in asks
    }
    assert score_choices(items, verbose)["all"]["circular_accuracy"] == 1.0
    first = items[0]
    half = {k: v for k, v in oracle.items() if not k.startswith(first.question_id + "#")}
    half[first.ask_id(0)] = "I cannot tell"
    result = score_choices(items, half)["all"]
    assert result["invalid_asks"] == 1 and result["missing_asks"] == first.rotations - 1
    assert result["circular_accuracy"] == pytest.approx((len(items) - 1) / len(items), abs=1e-4)


def test_replies_are_read_as_letters_or_option_texts() -> None:
    options = ("put the cup on the table", "get the knife", "open the fridge")
    assert parse_choice("B", options) == 1
    assert parse_choice("C. open the fridge", options) == 2
    assert parse_choice("Answer: A", options) == 0
    assert parse_choice("The answer is (B).", options) == 1
    assert parse_choice("Get the knife.", options) == 1
    assert parse_choice("They open the fridge", options) == 2  # one option named in the reply
    assert parse_choice("D", options) is None  # no fourth option
    assert parse_choice("the cup or the knife", options) is None
    assert parse_choice(None, options) is None


def test_text_only_on_multiple_choice_is_at_chance(benchmark_dir: Path) -> None:
    """Reading the text and the options picks the same option text in every rotation, so its
    circular accuracy equals its per-item accuracy. The options add nothing to the text's answer
    prior: it is right exactly where the answer is the train-favourite among the options, and
    on this small unbalanced fixture no more often than the open-answer prior is right plus the
    items whose favourite was not drawn (at chance on a balanced build: bench_multiple_choice)."""
    bench = Benchmark(benchmark_dir)
    train = bench.questions("normal", "train")
    items = [i for i in choice_items(bench, "normal") if i.split == "test"]
    replies = text_prior_replies(train, items)
    scores = score_choices(items, replies)["all"]
    assert scores["item_accuracy"] == scores["circular_accuracy"]
    assert 0 < scores["item_accuracy"] < 1
    assert chance(items) == pytest.approx(sum(1 / i.rotations for i in items) / len(items))


def test_export_and_evaluate_mc(benchmark_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "mc"
    result = runner.invoke(app, ["export", "mc", str(benchmark_dir), "--out", str(out)])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["options"] == 4 and manifest["splits"]["normal"]["test"]["items"] > 0
    lines = [json.loads(x) for x in (out / "normal" / "test.jsonl").read_text().splitlines()]
    assert lines[0]["prompt"].endswith("Answer with the option's letter.")
    assert lines[0]["answer"] in LETTERS and lines[0]["id"].endswith("#0")
    items = read_choice_export(out, "normal", "test")
    assert len(items) == manifest["splits"]["normal"]["test"]["items"]
    replies = tmp_path / "replies.jsonl"
    replies.write_text(
        "".join(
            json.dumps({"question_id": line["id"], "prediction": f"Answer: {line['answer']}"})
            + "\n"
            for line in lines
        )
    )
    args = ["evaluate", "-b", str(benchmark_dir), "--mc", str(out), "-p", str(replies)]
    result = runner.invoke(app, [*args, "-o", str(tmp_path / "ev")])
    assert result.exit_code == 0, result.output
    scored = json.loads((tmp_path / "ev" / "mc-results.json").read_text())
    assert scored["models"]["replies"]["scores"]["all"]["circular_accuracy"] == 1.0
    assert "text-only (multiple choice)" in scored["models"]
    again = runner.invoke(app, ["export", "mc", str(benchmark_dir), "--out", str(out)])
    assert again.exit_code == 0 and "replaced the earlier multiple-choice export" in again.output
    elsewhere = tmp_path / "notes"
    elsewhere.mkdir()
    (elsewhere / "mine.txt").write_text("keep")
    refused = runner.invoke(app, ["export", "mc", str(benchmark_dir), "--out", str(elsewhere)])
    assert refused.exit_code == 1 and (elsewhere / "mine.txt").is_file()
