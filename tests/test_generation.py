from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from taskqa.causal import build_structure
from taskqa.cli import app
from taskqa.model import Recording
from taskqa.programs import Program, parse_program
from taskqa.programs.clips import cut_clips
from taskqa.programs.executor import result
from taskqa.programs.records import build_view
from taskqa.questions.answers import answer
from taskqa.questions.check import check_questions
from taskqa.questions.config import GenerationConfig
from taskqa.questions.generate import generate_file
from taskqa.questions.indirect import (
    ACTION_REFERENCES,
    OBJECT_REFERENCES,
    THING_REFERENCES,
    with_indirect,
)
from taskqa.questions.instantiate import Instantiator, sample_space
from taskqa.questions.realize import parse_action_text
from taskqa.questions.template import Template, load_templates
from taskqa.questions.world import CorpusWorld
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import write_simulated_corpus
from taskqa.simulation.domain import Domain

SMOKE = Path(__file__).parent / "fixtures" / "templates"


@pytest.fixture(scope="module")
def templates() -> list[Template]:
    return load_templates([SMOKE])


def test_pruned_search_finds_exactly_what_brute_force_finds(
    small_corpus: list[Recording], templates: list[Template], domain: Domain
) -> None:
    checked = 0
    for recording in small_corpus[:4]:
        structure = build_structure(recording)
        for clip in cut_clips(recording)[:3]:
            view = build_view(recording, clip, structure, domain.templates)
            space = sample_space(view)
            for template in templates:
                engine = Instantiator(template)
                found = {
                    tuple(sorted(i.values.items())): i.answer for i in engine.instances(view, space)
                }
                assert found == _brute_force(engine, view, space)
                checked += len(found)
    assert checked > 50


def _brute_force(
    engine: Instantiator, view: object, space: object
) -> dict[tuple[tuple[str, str], ...], str]:
    names = engine.order
    kinds = [engine.template.params[n] for n in names]
    results: dict[tuple[tuple[str, str], ...], str] = {}
    pools = []
    for name, kind in zip(names, kinds, strict=True):
        pools.append([(name, v) for v in _all_options(space, kind)])
    for combo in itertools.product(*pools):
        values = dict(combo)
        by_kind = [(engine.template.params[n], v) for n, v in values.items()]
        if len(set(by_kind)) != len(by_kind):
            continue  # two parameters of one type never share a value
        if not _admissible(engine, space, values):
            continue
        got = result(engine.program.fill(values), view)  # type: ignore[arg-type]
        if got is not None and not _moment_degenerate(engine, view, values, got):
            results[tuple(sorted(values.items()))] = got
    return results


def _moment_degenerate(
    engine: Instantiator, view: object, values: dict[str, str], got: str
) -> bool:
    """The other moment (before/after) gives the same answer: the question needs no time."""
    for name in engine.moments:
        other = {**values, name: "after" if values[name] == "before" else "before"}
        if answer(engine.program.fill(other), view) == got:  # type: ignore[arg-type]
            return True
    return False


def _all_options(space: object, kind: object) -> list[str]:
    from taskqa.questions.instantiate import MOMENTS
    from taskqa.questions.template import ParamType

    s = space  # SampleSpace
    table = {
        ParamType.ACTION: s.actions,  # type: ignore[attr-defined]
        ParamType.ANY_ACTION: list(dict.fromkeys(s.actions + s.future_actions)),  # type: ignore[attr-defined]
        ParamType.CLIP_ACTION: list(dict.fromkeys(s.actions + s.other_actions + s.future_actions)),  # type: ignore[attr-defined]
        ParamType.OBJECT: s.objects,  # type: ignore[attr-defined]
        ParamType.ATTRIBUTE: s.attributes,  # type: ignore[attr-defined]
        ParamType.VALUE: sorted({v for vs in s.values.values() for v in vs}),  # type: ignore[attr-defined]
        ParamType.MOMENT: MOMENTS,
    }
    return list(table[kind])  # type: ignore[index]


def _admissible(engine: Instantiator, space: object, values: dict[str, str]) -> bool:
    """The sample-space narrowing the engine applies: an object's own attributes, an attribute's own values."""
    owned = space.object_attributes  # type: ignore[attr-defined]
    if (
        engine.object
        and engine.attribute
        and values[engine.attribute] not in owned.get(values[engine.object], ())
    ):
        return False
    value_names = [n for n, k in engine.template.params.items() if k.value == "value"]
    for name in value_names:
        if values[name] not in space.values.get(values[engine.attribute or ""], ()):  # type: ignore[attr-defined]
            return False
    return True


def test_generated_questions_all_check_out(
    tmp_path: Path, small_corpus: list[Recording], templates: list[Template], domain: Domain
) -> None:
    out = tmp_path / "questions.jsonl"
    config = GenerationConfig()
    summary = generate_file(small_corpus[:10], templates, out, config, domain.templates)
    lines = out.read_text().splitlines()
    assert summary["counts"]["questions"] == len(lines) > 1000
    expanded = with_indirect(templates)
    assert set(summary["templates"]) == {t.id for t in expanded}
    records = [json.loads(line) for line in lines]
    assert len({r["id"] for r in records}) == len(records)
    assert {r["template"] for r in records} >= {t.id for t in templates}
    indirect = [r for r in records if r["reference"] == "indirect"]
    references = {r["template"].rsplit("/", 1)[1].rsplit("-", 1)[0] for r in indirect}
    assert references and references <= set(OBJECT_REFERENCES)
    # every indirect question names its direct form on the same clip, and where that form was
    # asked it is the same question with the object said directly: the same answer
    by_id = {r["id"]: r for r in records}
    direct = [(r, by_id[r["direct_equiv"]]) for r in indirect if r["direct_equiv"] in by_id]
    assert direct
    for question, form in direct:
        assert form["clip"] == question["clip"] and form["reference"] == "direct"
        assert form["template"] == question["template"].rsplit("/", 1)[0]
        assert form["answer"] == question["answer"]
    assert all(
        "iterate_until" in r["program"] or "only(filter(verb@" in r["program"] for r in indirect
    )
    by_object = [r for r in indirect if r["template"].endswith("-o")]
    assert by_object
    # resolved over the actions shown (verb and the thing acted on), not the state log
    assert all(
        re.search(r"obj@<query\(patient\$, (iterate_until\(|only\()", r["program"])
        for r in by_object
    )
    # said by what was done to the thing, never as a "change" a viewer could read as a move
    done = ("opened", "closed", "turned on", "turned off", "filled", "cut", "washed", "took")
    assert all(any(f"thing they {d}" in r["question"] or f"thing the person {d}" in r["question"]
                   for d in done) for r in by_object)  # fmt: skip
    assert not any("changed" in r["question"] for r in by_object)
    for record in records[:200]:
        assert Program.from_json(record["program_graph"]) == parse_program(record["program"])
        assert "{" not in record["question"]
        assert record["answer_kind"] == ("binary" if record["answer"] in ("yes", "no") else "open")
    world = CorpusWorld.of(small_corpus[:10], domain.templates)
    checked, problems = check_questions(out, world)
    assert (checked, problems) == (len(records), [])
    levels = {r["obfuscation"] for r in records}
    assert levels >= {0, 1}
    hidden = [r for r in records if r["obfuscation"] >= 1]
    assert all("something" in r["question"] for r in hidden)
    assert all(re.search(r"(action|action1)@", r["program"]) for r in hidden)
    # every action keeps a named object, and no question says "something" three times
    for record in hidden:
        actions = [v for k, v in record["params"].items() if "something" in v]
        assert all(
            parse_action_text(a).objects().count("something") < len(parse_action_text(a).objects())
            for a in actions
        )
        assert record["question"].count("something") <= 2
    assert "fixed attribute" in summary["rejected"]


def test_adding_an_action_asks_only_of_actions_done(
    tmp_path: Path, small_corpus: list[Recording], domain: Domain
) -> None:
    """The counterfactual that adds an action to the trace can leave the later action possible
    or not; an action only tried is never in it, and every answer checks out."""
    chosen = [
        t for t in load_templates(everything=True) if t.id == "counterfactual/world/added-before"
    ]
    out = tmp_path / "added.jsonl"
    summary = generate_file(small_corpus[:10], chosen, out, GenerationConfig(), domain.templates)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["answer"] for r in records} == {"yes", "no"}
    assert summary["rejected"]["counterfactual adding to an action only tried"] > 0
    assert not any("tried" in r["question"] or "trying" in r["question"] for r in records)
    assert all(" right before" in r["question"] for r in records)
    # the added action is hypothetical, so its objects are always named
    assert not any("something" in r["question"] for r in records)
    world = CorpusWorld.of(small_corpus[:10], domain.templates)
    assert check_questions(out, world) == (len(records), [])


def test_obfuscation_can_be_turned_off(
    tmp_path: Path, small_corpus: list[Recording], templates: list[Template], domain: Domain
) -> None:
    out = tmp_path / "plain.jsonl"
    generate_file(
        small_corpus[:3], templates, out, GenerationConfig(obfuscation=0), domain.templates
    )
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["obfuscation"] for r in records} == {0}
    assert not any("action@" in r["program"] for r in records)


def test_texts_read_naturally(
    tmp_path: Path, small_corpus: list[Recording], templates: list[Template], domain: Domain
) -> None:
    out = tmp_path / "q.jsonl"
    generate_file(small_corpus[:3], templates, out, GenerationConfig(), domain.templates)
    texts = [json.loads(line)["question"] for line in out.read_text().splitlines()]
    assert any(t.startswith("If the person had not ") and " would " in t for t in texts)
    assert any(" the fridge" in t for t in texts)  # objects take an article
    assert not any("  " in t or "{" in t for t in texts)


def test_output_is_identical_for_any_number_of_workers(
    tmp_path: Path, small_corpus: list[Recording], templates: list[Template], domain: Domain
) -> None:
    config = GenerationConfig(seed=5)
    generate_file(
        small_corpus[:6], templates, tmp_path / "one.jsonl", config, domain.templates, workers=1
    )
    generate_file(
        small_corpus[:6], templates, tmp_path / "two.jsonl", config, domain.templates, workers=2
    )
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()
    assert (tmp_path / "one.summary.json").read_text() == (
        tmp_path / "two.summary.json"
    ).read_text()


def test_check_reports_a_tampered_answer(
    tmp_path: Path, small_corpus: list[Recording], small_config: SimulationConfig, domain: Domain
) -> None:
    corpus = tmp_path / "corpus"
    write_simulated_corpus(corpus, small_config, small_corpus[:3], domain)
    runner = CliRunner()
    out = tmp_path / "q.jsonl"
    result = runner.invoke(
        app, ["generate", str(corpus), "--out", str(out), "--templates", str(SMOKE)]
    )
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["check", str(out), "--annotations", str(corpus)])
    assert result.exit_code == 0, result.output
    assert "answers reproduced" in result.output
    lines = out.read_text().splitlines()
    record = json.loads(lines[3])
    original = record["answer"]
    record["answer"] = "banana"
    lines[3] = json.dumps(record)
    out.write_text("\n".join(lines) + "\n")
    result = runner.invoke(app, ["check", str(out), "--annotations", str(corpus)])
    assert result.exit_code == 1
    assert f"q.jsonl[3].answer: stored 'banana' but the program gives {original!r}" in result.output


def test_generation_runs_on_egotaskqa_annotations(
    tmp_path: Path, small_corpus: list[Recording], domain: Domain
) -> None:
    from taskqa.sources.egotaskqa import write_egotaskqa

    folder = tmp_path / "egotaskqa"
    write_egotaskqa(small_corpus[:2], folder, domain.templates)
    (folder / "taskqa_meta.json").unlink()  # only what EgoTaskQA's own files carry
    runner = CliRunner()
    out = tmp_path / "q.jsonl"
    result = runner.invoke(
        app, ["generate", str(folder), "--out", str(out), "--templates", str(SMOKE)]
    )
    assert result.exit_code == 0, result.output
    assert len(out.read_text().splitlines()) > 100
    result = runner.invoke(app, ["check", str(out), "--annotations", str(folder)])
    assert result.exit_code == 0, result.output


def test_questions_export_to_egotaskqa_qa_files(
    tmp_path: Path, small_corpus: list[Recording], templates: list[Template], domain: Domain
) -> None:
    out = tmp_path / "q.jsonl"
    generate_file(small_corpus[:2], templates, out, GenerationConfig(), domain.templates)
    result = CliRunner().invoke(app, ["export-egotaskqa", str(out), "--out", str(tmp_path / "ego")])
    assert result.exit_code == 0, result.output
    records = json.loads((tmp_path / "ego" / "tagged_qas.json").read_text())
    ours = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == len(ours)
    first = records[0]
    assert set(first) == {
        "question",
        "program",
        "answer",
        "interval",
        "type",
        "category",
        "semantic",
        "structural",
        "step",
        "reference",
        "reasoning_type",
        "video_id",
        "question_id",
    }
    assert first["interval"] == ours[0]["clip"] and first["question_id"] == 0
    assert first["reasoning_type"] == "$".join(
        [
            *ours[0]["types"],
            *ours[0]["scopes"],
            ours[0]["semantic"],
            ours[0]["structural"],
            "direct",
        ]
    )
    intervals = json.loads((tmp_path / "ego" / "vid_intervals.json").read_text())
    assert intervals == sorted({r["interval"] for r in records})
    # video ids count intervals in order of first appearance, as the released pipeline does
    order = list(dict.fromkeys(r["interval"] for r in records))
    assert all(r["video_id"] == order.index(r["interval"]) for r in records[:300])


def test_indirect_variants_of_the_built_in_templates_lint_clean() -> None:
    from taskqa.questions.lint import lint_templates

    built_in = load_templates()
    expanded = with_indirect(built_in, ACTION_REFERENCES, THING_REFERENCES)
    assert lint_templates(expanded) == []
    assert not any(t.reference == "indirect" and t.id.endswith(("-a", "/first-a", "/last-a"))
                   for t in with_indirect(built_in))  # no action variants by default  # fmt: skip
    variant = next(t for t in expanded if t.id == "descriptive/world/object-changed/first-a")
    assert variant.reference == "indirect"
    assert variant.texts[0] == "What changed when the person did the first action?"
    assert variant.program == "query(change, obj$, only(iterate_until(forward, video)))" or (
        "iterate_until(forward, video)" in variant.program
    )
    # the nested "the action right before/after {r}" references are not made by default: a
    # viewer has to find {r} and count a step
    assert not any("/after-" in t.id or "/before-" in t.id for t in expanded)


def built_in_program(built_in: list[Template], variant: Template) -> str:
    base = variant.id.rsplit("/", 1)[0] if variant.reference == "indirect" else variant.id
    return next((t.program for t in built_in if t.id == base), "")


def test_a_filter_that_changes_nothing_makes_the_question_degenerate(
    small_corpus: list[Recording], domain: Domain
) -> None:
    template = Template(
        id="t/next-with-object",
        texts=("What did the person do with {o} after {a:ing}?",),
        program="query(hoi$, iterate_until(forward, localize(after, only(filter(hoi@{a}, video)), filter(obj@{o}, video))))",
        params={"a": "action", "o": "object"},
        types=("descriptive",),
        scopes=("world",),
        semantic="action",
        structural="query",
    )
    without_filter = parse_program(
        "query(hoi$, iterate_until(forward, localize(after, only(filter(hoi@{a}, video)), video)))"
    )
    kept = rejected = 0
    for recording in small_corpus[:6]:
        structure = build_structure(recording)
        for clip in cut_clips(recording):
            view = build_view(recording, clip, structure, domain.templates)
            space = sample_space(view)
            engine = Instantiator(template)
            found = {
                tuple(sorted(i.values.items())): i.answer for i in engine.instances(view, space)
            }
            for values, expected in _brute_force(engine, view, space).items():
                simpler = answer(without_filter.fill(dict(values)), view)
                if simpler == expected:
                    assert values not in found  # "with {o}" adds nothing: rejected
                    rejected += 1
                else:
                    assert found[values] == expected
                    kept += 1
            assert engine.degenerate == sum(
                1
                for values, expected in _brute_force(engine, view, space).items()
                if answer(without_filter.fill(dict(values)), view) == expected
            )
    assert kept > 10 and rejected > 10


def test_a_question_is_asked_only_where_its_presupposition_holds(
    small_corpus: list[Recording], domain: Domain
) -> None:
    program = (
        "verify(change, obj@{o}, only(filter(hoi@{x}, obj@{o}, counterfactual(hoi@{a}, video))))"
    )
    presupposes = "verify(change, obj@{o}, only(filter(hoi@{x}, all)))"
    common = {
        "texts": ("Would {o} still change when the person {x} if they had not {a:pp}?",),
        "program": program,
        "params": {"a": "action", "x": "any_action", "o": "object"},
        "types": ("counterfactual",),
        "scopes": ("world",),
        "semantic": "change",
        "structural": "verify",
    }
    plain = Instantiator(Template(id="t/plain", **common))  # type: ignore[arg-type]
    still = Instantiator(Template(id="t/still", presupposes=presupposes, **common))  # type: ignore[arg-type]
    condition = parse_program(presupposes)
    kept = dropped = 0
    for recording in small_corpus[:6]:
        structure = build_structure(recording)
        for clip in cut_clips(recording):
            view = build_view(recording, clip, structure, domain.templates)
            space = sample_space(view)
            found = {
                tuple(sorted(i.values.items())): i.answer for i in still.instances(view, space)
            }
            for instance in plain.instances(view, space):
                values = tuple(sorted(instance.values.items()))
                if answer(condition.fill(dict(instance.values)), view) == "yes":
                    assert found.pop(values) == instance.answer
                    kept += 1
                else:
                    assert values not in found
                    dropped += 1
            assert not found
    assert kept > 10 and dropped > 10


def test_a_moment_that_changes_nothing_makes_the_question_degenerate(
    small_corpus: list[Recording], domain: Domain
) -> None:
    template = next(t for t in load_templates() if t.id == "descriptive/world/state")
    assert "{t}" in template.program
    kept = dropped = 0
    for recording in small_corpus[:6]:
        structure = build_structure(recording)
        for clip in cut_clips(recording):
            view = build_view(recording, clip, structure, domain.templates)
            space = sample_space(view)
            engine = Instantiator(template)
            found = {
                tuple(sorted(i.values.items())): i.answer for i in engine.instances(view, space)
            }
            everything = Instantiator(template)
            everything.moments = []  # the same search without the moment rule
            for instance in everything.instances(view, space):
                values = tuple(sorted(instance.values.items()))
                moment = instance.values["t"]
                swapped = {**instance.values, "t": "after" if moment == "before" else "before"}
                asked = answer(engine.program.fill(dict(instance.values)), view)
                if answer(engine.program.fill(swapped), view) == asked:
                    assert values not in found  # before or after, the same answer
                    dropped += 1
                else:
                    assert found.pop(values) == instance.answer
                    kept += 1
            assert not found
    assert kept > 10 and dropped > 10


def test_the_thing_they_cut_is_one_a_cut_action_cut(
    small_corpus: list[Recording], domain: Domain
) -> None:
    """Eating an egg halves it too; "the first / last thing they cut" names only what a cut
    action of the person's in the clip worked on (a frames review found the egg)."""
    found = 0
    for recording in small_corpus:
        structure = build_structure(recording)
        for clip in cut_clips(recording, GenerationConfig().clips):
            view = build_view(recording, clip, structure, domain.templates)
            cut = {o for i in view.observed if i.value("verb") == ("cut",) for o in i.value("obj")}
            for key in ("first-cut", "last-cut"):
                named = result(parse_program(OBJECT_REFERENCES[key][0]), view)
                if named is not None:
                    found += 1
                    assert named in cut, (clip.id, key, named)
    assert found > 0
