"""Natural forms of the same answer score as the answer (issue 35, item 2).

"closed the drawer" for "close the drawer" was counted invalid: the one answer normaliser
(``taskqa.answers``) did not lemmatise. It now takes any inflection of the verb an action,
attempt or task answer starts with, with or without a leading subject ("the person", "they")
and a final period, from a verb-form table embedded in answers.py (lmms-eval and VLMEvalKit run
a verbatim copy without taskqa's dependencies) that ``taskqa.evaluation.verb_forms`` writes
from lemminflect and the domain.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lemminflect import getAllInflections, getAllLemmas, getInflection
from typer.testing import CliRunner

import taskqa.answers as answers
import test_evaluation_fixture
from taskqa.answers import NOUN_COMPOUNDS, VERB_FORMS, collisions, normalize_answer
from taskqa.benchmark.export_lmms import normalizer_source, task_yaml
from taskqa.benchmark.export_vlmeval import DATASET
from taskqa.benchmark.folder import Benchmark
from taskqa.cli import app
from taskqa.evaluation.verb_forms import (
    answer_verbs,
    answers_file,
    embedded_source,
    inflections,
    table_source,
)
from taskqa.simulation.domain import load_domain

benchmark_dir = test_evaluation_fixture.benchmark_dir  # the shared session fixture
runner = CliRunner()
TAGS = ("VB", "VBD", "VBG", "VBN", "VBP", "VBZ")
PROMPTS = Path(answers.__file__).parent / "evaluation" / "adapters" / "prompts"


def _head(answer: str) -> str:
    """The verb an answer starts with (``turn-on the TV`` -> ``turn``), lower-cased."""
    return re.split(r"[\s-]+", answer.lower(), maxsplit=1)[0]


def _action_answers(bench: Path) -> list[str]:
    """The stored answers that start with a verb: actions, attempts and tasks."""
    found = {
        answer
        for answer in Benchmark(bench).answers()
        if len(answer.split()) >= 2 and _head(answer) in VERB_FORMS
    }
    return sorted(found)


def _every_form(verb: str) -> list[str]:
    """Every form lemminflect gives of ``verb`` (its rarer spellings too)."""
    forms = {f for found in getAllInflections(verb, upos="VERB").values() for f in found}
    for tag in TAGS:
        forms.update(getInflection(verb, tag=tag))
    return sorted(forms)


def test_the_embedded_table_is_what_the_generator_writes() -> None:
    """answers.py holds exactly the block ``python -m taskqa.evaluation.verb_forms`` writes."""
    assert embedded_source(answers_file().read_text(encoding="utf-8")) == table_source()


def test_the_table_covers_every_verb_of_the_answers_with_every_form() -> None:
    # every verb an action, task, made value or attempt is said with
    domain = load_domain()
    said = {_head(verb) for verb in domain.templates}
    said |= {
        getAllLemmas(_head(t.said), upos="VERB")["VERB"][0] for t in domain.spec.tasks.values()
    }
    assert said | {"try"} <= set(VERB_FORMS) == set(answer_verbs())
    base_of: dict[str, str] = {}
    for verb, forms in VERB_FORMS.items():
        assert set(forms) == set(inflections(verb))
        assert set(_every_form(verb)) - {verb} <= set(forms), verb
        for form in forms:
            # one verb per form, and no form is another verb's base: the rule is one lookup
            assert base_of.setdefault(form, verb) == verb, form
            assert form not in VERB_FORMS, form
    assert ("cutting", "board") in NOUN_COMPOUNDS


@pytest.mark.parametrize(
    ("said", "answer"),
    [
        ("closed the drawer", "close the drawer"),
        ("closing the drawer", "close the drawer"),
        ("closes the drawer", "close the drawer"),
        ("The person closed the drawer.", "close the drawer"),
        ("They closed the drawer", "close the drawer"),
        ("they were closing the drawer", "close the drawer"),
        ("The other person has closed the drawer.", "close the drawer"),
        ("turned on the TV", "turn on the TV"),
        ("stood up from the sofa", "stand-up from the sofa"),
        (
            "Tried to pour from the kettle into the white cup.",
            "try to pour from the kettle into the white cup",
        ),
        ("made a sandwich", "making a sandwich"),
    ],
)
def test_natural_forms_score_as_the_answer(said: str, answer: str) -> None:
    assert normalize_answer(said) == normalize_answer(answer)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("closed", "close"),  # a state is not an action
        ("the cutting board", "cut the board"),  # an object's name keeps its first word
        ("to put the cup on the counter", "put the cup on the counter"),  # a purpose stays one
        ("the person", "the other person"),  # who, asked as who, stays who
        ("the person did not close the drawer", "close the drawer"),
    ],
)
def test_what_differs_stays_apart(first: str, second: str) -> None:
    assert normalize_answer(first) != normalize_answer(second)


def test_every_inflection_of_an_action_answer_scores_as_it(benchmark_dir: Path) -> None:
    """For every answer of a generated benchmark that starts with a verb and every form
    lemminflect gives of that verb, said with or without a subject and a final period."""
    stored = _action_answers(benchmark_dir)
    assert len(stored) >= 10  # actions, attempts and tasks

    subjects = ["", "The person ", "they ", "The other person ", "She "]
    auxiliaries = {"VBG": ["was ", "is ", "were "], "VBN": ["has ", "had "], "VB": ["will "]}

    @settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.sampled_from(stored), st.data())
    def check(answer: str, data: st.DataObject) -> None:
        verb = _head(answer)
        tag = data.draw(st.sampled_from(TAGS))
        form = data.draw(st.sampled_from(getInflection(verb, tag=tag) or (verb,)))
        subject = data.draw(st.sampled_from(subjects))
        auxiliary = data.draw(st.sampled_from(["", *auxiliaries.get(tag, [])])) if subject else ""
        rest = answer[len(verb) :]  # "-on the TV", " the drawer"
        said = f"{subject}{auxiliary}{form}{rest}{data.draw(st.sampled_from(['', '.']))}"
        assert normalize_answer(said) == normalize_answer(answer), said

    check()


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_normalization_is_idempotent_on_any_text(text: str) -> None:
    once = normalize_answer(text)
    assert normalize_answer(once) == once


WORDS = sorted(
    {"the", "a", "person", "other", "they", "were", "has", "to", "cutting", "board", "drawer"}
    | set(VERB_FORMS)
    | {form for forms in VERB_FORMS.values() for form in forms}
)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=6), st.sampled_from(["", ".", "!"]))
def test_normalization_is_idempotent_on_sentences_of_its_words(words: list[str], end: str) -> None:
    once = normalize_answer(" ".join(words) + end)
    assert normalize_answer(once) == once


def _without_verb_rule(monkeypatch: pytest.MonkeyPatch, texts: list[str]) -> dict[str, list[str]]:
    """Collisions as normalization version 2 gave them (no subject, no verb forms)."""
    with monkeypatch.context() as patched:
        patched.setattr(answers, "_without_subject", lambda words: words)
        patched.setattr(answers, "_base_first", lambda words: words)
        return collisions(texts)


def test_the_rule_joins_no_two_stored_answers(
    benchmark_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No two answers of a built benchmark become one, except a task named by its gerund and
    the action said in the same words ("watching TV", "watch the TV") and one action said as
    what was done and as what someone was doing ("pour from the kettle into the red mug",
    "pouring from the kettle into the red mug", answers of different templates): one activity."""
    stored = sorted(Benchmark(benchmark_dir).answers())
    before = {tuple(group) for group in _without_verb_rule(monkeypatch, stored).values()}
    tasks = {normalize_answer(t.said) for t in load_domain().spec.tasks.values() if t.said}
    for form, group in collisions(stored).items():
        if tuple(group) not in before:
            one_action = len({" ".join(answers._base_first(g.split())) for g in group}) == 1
            assert form in tasks or one_action, group


def _past_tense(answer: str) -> str:
    """``close the drawer`` -> ``The person closed the drawer.``; other answers as they are."""
    head = _head(answer)
    if len(answer.split()) < 2 or head not in VERB_FORMS:
        return answer
    past = getInflection(head, tag="VBD")[0]
    return f"The person {past}{answer[len(head) :]}."


def test_an_oracle_file_in_the_past_tense_scores_100(benchmark_dir: Path, tmp_path: Path) -> None:
    questions = Benchmark(benchmark_dir).questions("normal", "test")
    predictions = tmp_path / "past.jsonl"
    said = [_past_tense(q.question.answer) for q in questions]
    assert sum(s != q.question.answer for s, q in zip(said, questions, strict=True)) >= 5
    predictions.write_text(
        "".join(
            json.dumps({"question_id": q.id, "prediction": s}) + "\n"
            for q, s in zip(questions, said, strict=True)
        )
    )
    args = ["evaluate", "-b", str(benchmark_dir), "-p", str(predictions), "-o", str(tmp_path / "r"),
            "--resamples", "20", "--no-most-likely"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "past: 100.00%" in result.output
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    overall = results["models"][0]["breakdowns"]["overall"]["all"]
    assert overall["correct"] == len(questions) and overall["invalid"] == 0
    assert results["normalization"]["version"] == "4"
    assert any("verb" in rule for rule in results["normalization"]["rules"])


def test_the_exported_copy_normalizes_as_taskqa_does(tmp_path: Path) -> None:
    """lmms-eval and VLMEvalKit run answers.py's copy on its own: the table travels with it."""
    copy = tmp_path / "taskqa_normalize.py"
    copy.write_text(normalizer_source(), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("taskqa_normalize_copy", copy)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for said in ("The person closed the drawer.", "making a sandwich", "the cutting board"):
        assert module.normalize_answer(said) == normalize_answer(said)


def test_the_prompts_say_what_form_to_answer_in() -> None:
    """Neither the chat prompt nor the lmms-eval prompt said what form to answer in."""
    lmms = yaml.safe_load(task_yaml("normal", Path("/data")).replace("!function ", ""))
    post_prompt = lmms["lmms_eval_specific_kwargs"]["default"]["post_prompt"]
    match = re.search(r"POST_PROMPT = (\(.*?\n\))", DATASET, re.DOTALL)
    assert match is not None
    vlmeval = ast.literal_eval(match.group(1).replace("\\\\n", "\\n"))
    chat = [(PROMPTS / f"{name}.txt").read_text(encoding="utf-8") for name in ("default", "blind")]
    for prompt in (post_prompt, vlmeval, *chat):
        assert "yes or no for a yes/no question" in prompt
        assert "an action as a verb phrase (open the fridge)" in prompt
        assert "to open the fridge" in prompt and "short phrase" in prompt
