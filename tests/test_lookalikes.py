"""Things a viewer can tell apart: no look-alike twins.

A viewer study of the frame sheets (224 px) confused "the blue cup" with "the blue mug": a cup,
a mug and a glass are drawn alike, so two of them in one colour are one thing on screen. The
domain file says which kinds look alike (``lookalike``), the loader refuses a file with two
objects of one group in one colour, and the build's grounding check drops a question naming an
object whose look-alike is in its recording (for domains that do not declare the groups the
built-in look draws alike).
"""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from pathlib import Path

import pytest

from corpus_support import simulated_corpus
from problem_text import by_name, problem_lines, run
from taskqa.benchmark.grounding import LOOKALIKE, OBJECT_OFF, ground_candidates, reason
from taskqa.benchmark.lookalikes import (
    lookalike_groups,
    named_twin,
    recording_objects,
    recording_twins,
)
from taskqa.benchmark.needs import Need
from taskqa.benchmark.report import _grounding_section
from taskqa.convert import read_recordings
from taskqa.household.look_spec import COLOR_WORDS
from taskqa.model import Recording
from taskqa.problems import InvalidInputError
from taskqa.programs import quote_value
from taskqa.programs.clips import ClipRecord, clip_record, cut_clips
from taskqa.programs.records import plain_action
from taskqa.questions.config import GenerationConfig
from taskqa.questions.world import CorpusWorld
from taskqa.reports import Table
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus
from taskqa.simulation.domain import Domain, load_domain, parse_domain

GROUP = "lookalike:\n  - [cup, mug, glass]\n"


def _colours_by_group(domain: Domain) -> list[tuple[frozenset[str], list[tuple[str, str]]]]:
    """Each look-alike group (and each category on its own) with its objects' colours."""
    kinds = {domain.category(name) for name in domain.spec.objects}
    groups = [*domain.lookalikes, *(frozenset({kind}) for kind in kinds)]
    return [
        (
            group,
            [
                (name, spec.color)
                for name, spec in domain.spec.objects.items()
                if spec.color is not None and domain.category(name) in group
            ],
        )
        for group in groups
    ]


# --- 1. the built-in world ---------------------------------------------------------------------


def test_the_built_in_world_has_no_look_alike_twins(domain: Domain) -> None:
    assert frozenset({"cup", "mug", "glass"}) in domain.lookalikes
    for group, coloured in _colours_by_group(domain):
        colours = [colour for _, colour in coloured]
        assert len(colours) == len(set(colours)), (sorted(group), coloured)
    for name in domain.spec.objects:
        assert domain.twins(name, domain.spec.objects) == []
    # the cups and mugs: five colours, each once (the living room's cups are pink and black)
    vessels = {
        name: spec.color
        for name, spec in domain.spec.objects.items()
        if domain.category(name) in {"cup", "mug"}
    }
    assert vessels == {
        "white-cup": "white",
        "yellow-cup": "yellow",
        "blue-mug": "blue",
        "red-mug": "red",
        "green-mug": "green",
        "pink-cup": "pink",
        "black-cup": "black",
    }
    assert domain.tasks["clean-coffee-table"].roles["cup"] == ("pink-cup", "black-cup")


def test_look_alike_colours_are_plain_words_the_renderer_draws_far_apart(domain: Domain) -> None:
    for group, coloured in _colours_by_group(domain):
        for name, colour in coloured:
            assert colour in COLOR_WORDS, name  # drawn in its colour, not a fallback
            assert name.startswith(f"{colour}-")  # "the pink cup"
        for (one, first), (two, second) in itertools.combinations(coloured, 2):
            distance = math.dist(COLOR_WORDS[first], COLOR_WORDS[second])
            assert distance > 0.35, (sorted(group), one, two, distance)


def test_bowls_and_plates_are_not_look_alikes_of_cups(domain: Domain) -> None:
    """The white cup, the white bowl and the white plate stay: different shapes."""
    assert not any({"bowl", "plate"} & group for group in domain.lookalikes)
    assert domain.twins("white-cup", domain.spec.objects) == []


# --- 2. the loader refuses twins -----------------------------------------------------------------


def _builtin() -> str:
    text = load_domain().source_text
    assert GROUP in text
    return text


def test_a_domain_with_a_look_alike_twin_is_refused_naming_both_and_the_colour() -> None:
    twin = _builtin().replace("pink-cup", "red-cup").replace("color: pink", "color: red")
    with pytest.raises(InvalidInputError) as caught:
        parse_domain(twin, "mine.yaml")
    assert [str(p) for p in caught.value.problems] == [
        "mine.yaml.objects[\"red-cup\"].color: 'red-mug' and 'red-cup' are both red, and a mug "
        "and a cup look alike (lookalike): a viewer cannot tell which one a question names; "
        "give one of them another colour"
    ]
    # the file's own groups decide: without them the red cup and the red mug are two kinds
    assert parse_domain(twin.replace(GROUP, ""), "mine.yaml").twins("red-cup", ["red-mug"]) == []


def test_two_things_of_one_category_in_one_colour_are_refused_without_any_group() -> None:
    twin = (
        _builtin()
        .replace(GROUP, "")
        .replace("category: mug, color: green", "category: mug, color: blue")
    )
    with pytest.raises(InvalidInputError) as caught:
        parse_domain(twin, "mine.yaml")
    (problem,) = caught.value.problems
    assert problem.location == '.objects["green-mug"].color'
    assert "'blue-mug' and 'green-mug' are both blue, and both mugs" in problem.message


def test_look_alike_groups_name_two_known_categories() -> None:
    broken = _builtin().replace(GROUP, "lookalike:\n  - [cup]\n  - [cup, mugs]\n")
    with pytest.raises(InvalidInputError) as caught:
        parse_domain(broken, "mine.yaml")
    assert [str(p) for p in caught.value.problems] == [
        "mine.yaml.lookalike[0]: expected two or more categories",
        "mine.yaml.lookalike[1][1]: unknown category 'mugs'; expected an object's category "
        "(or id)",
    ]


def test_a_users_domain_file_gets_the_same_check(tmp_path: Path) -> None:
    path = tmp_path / "my-world.yaml"
    path.write_text(
        _builtin().replace("black-cup", "blue-cup").replace("color: black", "color: blue")
    )
    with pytest.raises(InvalidInputError) as caught:
        load_domain(path)
    assert [by_name(p) for p in caught.value.problems] == [
        "my-world.yaml.objects[\"blue-cup\"].color: 'blue-mug' and 'blue-cup' are both blue, and "
        "a mug and a cup look alike (lookalike): a viewer cannot tell which one a question "
        "names; give one of them another colour"
    ]
    code, output = run("validate", str(path))
    assert code != 0
    assert any("'blue-mug' and 'blue-cup' are both blue" in line for line in problem_lines(output))


# --- 3. the grounding check ----------------------------------------------------------------------


def _kitchen_twins() -> str:
    """A user's world that does not declare look-alikes and has a blue cup beside the blue mug
    in the kitchen (the white cup recoloured): it loads, since its file names no groups."""
    text = _builtin().replace(GROUP, "")
    text = text.replace("white-cup", "blue-cup")
    text = text.replace("category: cup, color: white", "category: cup, color: blue")
    return text


@pytest.fixture(scope="module")
def twin_domain() -> Domain:
    return parse_domain(_kitchen_twins(), "kitchen-twins.yaml")


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKQA_DATA", str(tmp_path / "taskqa-cache"))


def test_the_check_uses_the_built_in_groups_too(twin_domain: Domain) -> None:
    assert twin_domain.lookalikes == ()
    groups = lookalike_groups(twin_domain)
    assert frozenset({"cup", "mug", "glass"}) in groups
    assert twin_domain.twins("blue-mug", twin_domain.spec.objects, groups) == ["blue-cup"]
    assert twin_domain.twins("red-mug", twin_domain.spec.objects, groups) == []


def test_the_built_in_world_drops_nothing_for_look_alikes(domain: Domain) -> None:
    recordings = simulate_corpus(SimulationConfig(episodes=8, seed=3), domain)
    for recording in recordings:
        present = recording_objects(recording, domain)
        assert present and present <= set(domain.spec.objects)
        assert recording_twins(recording, domain) == {}


def test_twins_are_those_of_the_recording(twin_domain: Domain) -> None:
    """A kitchen recording has both blue things; a living-room one neither; a distractor
    counts only in the episodes it is there."""
    recordings = simulate_corpus(SimulationConfig(episodes=8, seed=3), twin_domain)
    kitchens = [r for r in recordings if r.environment == "kitchen"]
    rooms = [r for r in recordings if r.environment == "living-room"]
    assert kitchens and rooms
    for recording in kitchens:
        twins = recording_twins(recording, twin_domain)
        assert twins["blue-mug"] == ["blue-cup"] and twins["blue-cup"] == ["blue-mug"]
        assert set(twins) == {"blue-mug", "blue-cup"}
    assert all(recording_twins(r, twin_domain) == {} for r in rooms)
    # named_twin: persons and actions the renderer does not act out are not objects
    twins = {"blue-mug": ["blue-cup"]}
    assert named_twin([Need("blue-mug", None, person=True)], twins) is None
    assert named_twin(None, twins) is None
    found = named_twin([Need("kettle", "a1"), Need("blue-mug", "a2")], twins)
    assert found is not None
    assert reason(found[0]) == LOOKALIKE.format("blue-mug")
    assert reason(found[0]) == (
        "grounding: a look-alike of a named object is in the recording (blue-mug)"
    )


def _clips(recording: Recording) -> dict[str, ClipRecord]:
    generation = GenerationConfig().model_dump(mode="json")
    return {
        clip.id: ClipRecord.model_validate(clip_record(clip, generation))
        for clip in cut_clips(recording, GenerationConfig().clips)
    }


def _question(
    recording: Recording, verbs: dict[str, str], wanted: set[str], avoid: set[str]
) -> tuple[ClipRecord, str, str] | None:
    """A clip and one of its actions (said once in the clip) whose patient is one of
    ``wanted`` and that names none of ``avoid``: the clip, the action's words, the patient."""
    for clip in _clips(recording).values():
        shown = [a for a in recording.actions if a.id in clip.observed]
        texts = Counter(plain_action(a, verbs) for a in shown)
        for action in shown:
            text = plain_action(action, verbs)
            patient = action.slots.patient[0] if action.slots.patient else None
            if texts[text] != 1 or patient not in wanted:
                continue
            if set(action.slots.objects()) & avoid:
                continue
            return clip, text, patient
    return None


def test_a_question_naming_a_thing_with_a_look_alike_is_dropped_and_counted(
    twin_domain: Domain, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    corpus = simulated_corpus(tmp_path_factory, twin_domain, "lookalikes", episodes=8, seed=3)
    recordings, verbs = read_recordings(corpus)
    twins = {"blue-mug", "blue-cup"}
    found = None
    for recording in recordings:
        if recording.environment != "kitchen":
            continue
        named = _question(recording, verbs, twins, set())
        plain = _question(recording, verbs, {"kettle", "orange", "bread", "egg"}, twins)
        if named is not None and plain is not None and named[0].id == plain[0].id:
            found = recording, named, plain
            break
    assert found is not None, "no kitchen clip acts on a blue thing and on another thing"
    recording, (clip, text, twin), (_, other_text, other) = found
    program = "verify(change, obj@{}, only(filter(hoi@{}, video)))"
    lines = [
        {"id": "twin", "recording": recording.id, "clip": clip.id,
         "program": program.format(quote_value(twin), quote_value(text))},
        {"id": "plain", "recording": recording.id, "clip": clip.id,
         "program": program.format(quote_value(other), quote_value(other_text))},
    ]  # fmt: skip
    source = tmp_path / "questions.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = ground_candidates(
        CorpusWorld.open(corpus),
        source,
        {clip.id: clip},
        tmp_path / "kept.jsonl",
        cache=tmp_path / "c",
    )
    dropped = LOOKALIKE.format(twin)
    assert result.checked == 2 and result.dropped[dropped] == 1
    # the other question is judged by the masks alone: kept, or off screen, never a look-alike
    assert set(result.dropped) <= {dropped, OBJECT_OFF.format(other)}
    kept = [json.loads(x)["id"] for x in (tmp_path / "kept.jsonl").open()]
    assert "twin" not in kept and len(kept) == result.kept
    assert result.frames > 0  # masks were drawn for the other question only
    summary = result.summary()
    assert summary["dropped"][dropped] == 1
    assert result.rejected({"degenerate": 3})[dropped] == 1
    # the build report lists it with the other reasons
    tables = [b for b in _grounding_section(summary) if isinstance(b, Table)]
    assert [dropped, 1] in [list(row) for table in tables for row in table.rows]
