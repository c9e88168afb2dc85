"""The validator must catch a corpus that does not follow from its own domain."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from problem_text import by_name
from taskqa.corpus import RECORDINGS
from taskqa.problems import InvalidInputError
from taskqa.simulation.domain import load_domain, parse_domain
from taskqa.validate import validate_corpus


def _edit(corpus: Path, tmp_path: Path, change: Any) -> Path:
    copy = tmp_path / "edited"
    shutil.copytree(corpus, copy)
    lines = (copy / RECORDINGS).read_text().splitlines()
    records = [json.loads(line) for line in lines]
    change(records)
    (copy / RECORDINGS).write_text("".join(json.dumps(r) + "\n" for r in records))
    return copy


def _find(
    records: list[dict[str, Any]], verb: str, entity: str, outcome: str = "done"
) -> tuple[int, int, int]:
    for r_index, record in enumerate(records):
        for a_index, action in enumerate(record["actions"]):
            if action["verb"] != verb or action.get("outcome", "done") != outcome:
                continue
            for t_index, transition in enumerate(action["transitions"]):
                if transition["entity"] == entity:
                    return r_index, a_index, t_index
    raise LookupError(verb)


def test_a_broken_state_chain_is_reported(small_corpus_dir: Path, tmp_path: Path) -> None:
    spot: dict[str, tuple[int, int, int]] = {}

    def close_the_fridge_too_early(records: list[dict[str, Any]]) -> None:
        r, a, t = spot["at"] = _find(records, "close", "fridge")
        before = records[r]["actions"][a]["transitions"][t]["before"]["attributes"]
        before["openness"] = "closed"

    edited = _edit(small_corpus_dir, tmp_path, close_the_fridge_too_early)
    messages = [by_name(p) for p in validate_corpus(edited)]
    r, a, t = spot["at"]
    prefix = f"recordings.jsonl[{r}].actions[{a}].transitions[{t}].before"
    assert any(
        m.startswith(f"{prefix}.attributes.openness: fridge is 'closed' here but ")
        for m in messages
    ), messages
    assert any(
        m.startswith(f"recordings.jsonl[{r}].actions[{a}]: precondition `patient.openness == open`")
        for m in messages
    ), messages


def test_an_effect_that_did_not_happen_is_reported(small_corpus_dir: Path, tmp_path: Path) -> None:
    spot: dict[str, tuple[int, int, int]] = {}

    def cut_without_effect(records: list[dict[str, Any]]) -> None:
        r, a, t = spot["at"] = _find(records, "cut", "orange")
        transition = records[r]["actions"][a]["transitions"][t]
        transition["after"]["attributes"]["shape"] = "whole"

    edited = _edit(small_corpus_dir, tmp_path, cut_without_effect)
    r, a, t = spot["at"]
    expected = (
        f"recordings.jsonl[{r}].actions[{a}].transitions[{t}].after.attributes.shape: "
        "orange is 'whole' after 'cut'; its effects give 'part'"
    )
    assert expected in [by_name(p) for p in validate_corpus(edited)]


def test_a_wrong_type_in_a_corpus_gives_its_record_path(
    small_corpus_dir: Path, tmp_path: Path
) -> None:
    def bad_time(records: list[dict[str, Any]]) -> None:
        records[2]["actions"][1]["start"] = "soon"

    problems = [by_name(p) for p in validate_corpus(_edit(small_corpus_dir, tmp_path, bad_time))]
    assert problems == [
        "recordings.jsonl[2].actions[1].start: Input should be a valid number, unable to parse "
        'string as a number (got "soon")'
    ]


def test_domain_files_are_checked_with_paths() -> None:
    source = load_domain().source_text
    broken = source.replace('"Cut [fruit] using [knife]"', '"Cut [fruit] using [spork]"', 1)
    broken = broken.replace("after: [board-fruit, take-knife]", "after: [board-fruit, cut-fruit]")
    broken = broken.replace(
        'requires: ["patient.openness == open"]', 'requires: ["patient.openness == ajar"]'
    )
    with pytest.raises(InvalidInputError) as caught:
        parse_domain(broken, "household.yaml")
    messages = [by_name(p) for p in caught.value.problems]
    assert (
        'household.yaml.tasks["make-juice"].steps["cut-fruit"].actions[0]: '
        "unknown object 'spork' in room 'kitchen'"
    ) in messages
    assert any("make-juice" in m and "form a cycle" in m for m in messages)
    assert any(
        m.startswith("household.yaml.actions.close.requires[0]: 'ajar' is not a value of openness")
        for m in messages
    )


def test_domain_yaml_syntax_errors_are_reported() -> None:
    with pytest.raises(InvalidInputError, match="invalid YAML"):
        parse_domain("name: [unclosed", "mine.yaml")


def test_failed_and_partial_actions_are_checked_against_their_outcome(
    small_corpus_dir: Path, tmp_path: Path
) -> None:
    spot: dict[str, Any] = {}

    def misreport(records: list[dict[str, Any]]) -> None:
        # a failed open whose after-state shows it open, and a `get` that says it failed
        r, a = next(
            (r, a)
            for r, record in enumerate(records)
            for a, action in enumerate(record["actions"])
            if action["verb"] == "open"
            and action.get("outcome") == "failed"
            and "openness" in action["transitions"][0]["after"]["attributes"]
        )
        patient = records[r]["actions"][a]["slots"]["patient"][0]
        r, a, t = spot["open"] = _find(records[: r + 1], "open", patient, outcome="failed")
        records[r]["actions"][a]["transitions"][t]["after"]["attributes"]["openness"] = "open"
        spot["patient"] = (patient,)
        r, a, _ = spot["get"] = _find(records, "get", "fridge")
        records[r]["actions"][a]["outcome"] = "failed"

    messages = [by_name(p) for p in validate_corpus(_edit(small_corpus_dir, tmp_path, misreport))]
    r, a, t = spot["open"]
    assert (
        f"recordings.jsonl[{r}].actions[{a}].transitions[{t}].after.attributes.openness: "
        f"{spot['patient'][0]} is 'open' after 'open'; its effects give 'closed'"
    ) in messages
    r, a, _ = spot["get"]
    assert (
        f"recordings.jsonl[{r}].actions[{a}].outcome: 'get' cannot fail; its schema has no `fails`"
    ) in messages


def test_the_initial_state_starts_each_objects_chain(
    small_corpus_dir: Path, tmp_path: Path
) -> None:
    spot: dict[str, Any] = {}

    def drift(records: list[dict[str, Any]]) -> None:
        # the first recording (past record 1) whose first openness an action finds is an
        # object's first appearance: that object starts the other way round
        for r_index, record in enumerate(records[2:], start=2):
            seen: set[str] = set()
            for a_index, action in enumerate(record["actions"]):
                for t_index, transition in enumerate(action["transitions"]):
                    name = transition["entity"]
                    value = transition["before"]["attributes"].get("openness")
                    if name not in seen and value in ("open", "closed") and "at" not in spot:
                        flipped = "closed" if value == "open" else "open"
                        record["initial_state"][name]["attributes"]["openness"] = flipped
                        spot.update(
                            at=(r_index, a_index, t_index), name=name, value=value, flipped=flipped
                        )
                    seen.add(name)
        # record 1: the first object acted on is missing from the initial state
        spot["missing"] = records[1]["actions"][0]["transitions"][0]["entity"]
        del records[1]["initial_state"][spot["missing"]]

    messages = [by_name(p) for p in validate_corpus(_edit(small_corpus_dir, tmp_path, drift))]
    r, a, t = spot["at"]
    assert (
        f"recordings.jsonl[{r}].actions[{a}].transitions[{t}].before.attributes.openness: "
        f"{spot['name']} is {spot['value']!r} here but initial_state left it {spot['flipped']!r}; "
        "expected the state the previous action on this object ended with"
    ) in messages
    assert (
        "recordings.jsonl[1].actions[0].transitions[0].entity: "
        f"{spot['missing']} is not in the recording's initial_state; "
        "expected every object acted on to be there from the start"
    ) in messages
