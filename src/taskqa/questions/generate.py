"""Generating every question of every template on every clip of a corpus.

Generation for one recording is a pure function of the recording, the templates and the seed,
so recordings can be spread over worker processes and the output is the same for any number of
them. Questions stream to a JSONL file in recording order; a summary of counts per category
goes beside it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from taskqa import __version__
from taskqa.causal import build_structure
from taskqa.execution import Execution, ShardJournal, fingerprint, run_shards
from taskqa.jsonio import record_line, write_json, write_jsonl
from taskqa.model import Recording
from taskqa.programs.clips import Clip, clip_record, cut_clips
from taskqa.programs.operators import nested_value
from taskqa.programs.records import ClipView, build_view
from taskqa.questions import visible
from taskqa.questions.answers import (
    answer_choices,
    attempted_actions,
    in_form,
    spoken_answer,
)
from taskqa.questions.config import GenerationConfig
from taskqa.questions.foreseen import next_step_foreseen
from taskqa.questions.indirect import with_indirect
from taskqa.questions.instantiate import Instance, Instantiator, Memo, SampleSpace, sample_space
from taskqa.questions.realize import Speaker, parse_action_text
from taskqa.questions.records import Question
from taskqa.questions.tags import BINARY_ANSWERS, answer_kind
from taskqa.questions.template import ACTION_PARAMS, ParamType, Template
from taskqa.questions.wanted_texts import WantedTexts
from taskqa.questions.wellposed import FIXED
from taskqa.questions.words import Unsayable, untouched_shown, words
from taskqa.questions.world import World, corpus_world, wording
from taskqa.simulation.config import derive_seed
from taskqa.simulation.domain import Domain

# one recording's questions as JSONL text, their summary counts and the rejections by reason
Shard = tuple[str, Counter[str], Counter[str]]


def question_id(clip: str, template: str, values: dict[str, str]) -> str:
    key = json.dumps([clip, template, sorted(values.items())], ensure_ascii=False)
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]


def questions_for_recording(
    recording: Recording,
    templates: Sequence[Template],
    config: GenerationConfig,
    verb_templates: dict[str, str] | None = None,
    rejected: Counter[str] | None = None,
    world: World | None = None,
    texts: Callable[[Clip], Collection[str]] | None = None,
) -> list[Question]:
    """Every question of every template on every clip; ``rejected`` counts what was dropped.

    ``world`` (see ``corpus_world``) gives the well-posedness rules and the English their
    domain; by default the recording's own world as ``corpus_world`` finds it. ``texts``, when
    given, are the question texts wanted on each clip (a minimal pair's second recording wants
    those its first one asked there): only the questions with one of them are returned, the
    very ones generation gives without it, and what cannot give one is not asked at all
    (wanted_texts.py), so ``rejected`` then counts only what was asked.
    """
    said = wording(corpus_world([recording]) if world is None else world)
    structure = build_structure(recording, config.rules, said.domain)
    engines = _engines(tuple(templates), config.obfuscation)
    before = _engine_counts(engines)
    rejected = Counter() if rejected is None else rejected
    people = len(recording.agents)
    questions: list[Question] = []
    outcome_of = {action.id: action.outcome for action in recording.actions}
    ended = visible.by_end(recording)
    for clip in cut_clips(recording, config.clips):
        wanted = None if texts is None else WantedTexts(texts(clip))
        if wanted is not None and not wanted:
            continue
        first_of_clip = len(questions)
        view = build_view(recording, clip, structure, verb_templates)
        attempted = attempted_actions(view, outcome_of)
        unclear = _tried_not_done(view, outcome_of, attempted)
        on_screen = visible.Clip(
            view,
            outcome_of,
            attempted | unclear,
            visible.done_before_clip(ended, clip),
            next_step_foreseen(recording, clip),
        )
        space = sample_space(view)
        memo: Memo = {}
        for engine, variants in engines:
            narrowing = None
            if wanted is not None:
                narrowing = wanted.narrowing(
                    engine.template, variants.keys(), said.speaker, people, attempted, space.hidden
                )
            for instance in engine.instances(view, space, memo, said.rules.fixed, narrowing):
                if instance.answer == "unknown":
                    rejected["unknown answer"] += 1
                    continue
                unfit = _unfit(
                    engine, instance, said.domain, attempted, unclear, space.untouched
                ) or visible.unseen(
                    engine.template, instance.values, instance.answer, on_screen, said.domain
                )
                if unfit is not None:
                    rejected[unfit] += 1
                    continue
                owner = (
                    nested_value(view, engine.object_reference) if engine.object_reference else None
                )
                reason = said.rules.violation(
                    engine.template.program,
                    instance.values,
                    instance.answer,
                    owner,
                    space.object_attributes,
                )
                if reason is None and _restates(instance, engine.template):
                    reason = RESTATES
                if reason is None and _opens_what_is_named(instance, engine.template):
                    reason = OPENS_NAMED
                if reason is not None:
                    rejected[reason] += 1
                    continue
                level, shown = _hide_objects(
                    engine, variants, instance, view, space, memo, rejected
                )
                try:
                    question = _question(
                        recording.id,
                        clip.id,
                        clip.agent,
                        variants.get(level, engine),
                        instance,
                        shown,
                        level,
                        config,
                        said.speaker,
                        people,
                        attempted,
                        _direct_form(clip.id, engine.template, instance, owner),
                    )
                except Unsayable:
                    rejected[UNSAYABLE] += 1
                    continue
                if question is None:
                    rejected["answer in question"] += 1
                else:
                    questions.append(question)
        questions[first_of_clip:] = [
            question
            for question in _one_per_text(questions[first_of_clip:], rejected)
            if wanted is None or question.question in wanted.texts
        ]
    after = _engine_counts(engines)
    for reason in after:
        rejected[reason] += after[reason] - before[reason]
    return questions


TRIED_NOT_DONE = "existence of an action only tried in the clip"
ADDED_TRIED = "counterfactual adding to an action only tried"
ADDING = "counterfactual(add,"  # the program of a counterfactual that adds an action
OPENS_NAMED = "answer opens, closes or switches what the question names"
UNSAYABLE = "no words for a value or an attribute (english.yaml)"
REPEATED = "an action done more than once, told apart by a state the words do not say"
FIXTURE = "a fixture asked about as a thing carried"
UNTOUCHED_UNSEEN = "an untouched thing in a state a frame does not show large"


def _unfit(
    engine: Instantiator,
    instance: Instance,
    domain: Domain | None,
    attempted: frozenset[str],
    unclear: frozenset[str],
    untouched: Collection[str] = (),
) -> str | None:
    """Why an instance is no question a viewer could answer, before the well-posedness rules
    (None: it may be one); ``untouched``: the clip's things no shown action involves."""
    template = engine.template
    actions = [instance.values[name] for name in engine.action_params]
    if template.objects == "carried" and _names_fixture(template, instance, domain):
        return FIXTURE
    if template.objects == "room" and _untouched_unseen(template, instance, domain, untouched):
        return UNTOUCHED_UNSEEN
    if template.program.startswith("exist(") and any(a in unclear for a in actions):
        return TRIED_NOT_DONE
    if ADDING in template.program and any(a in attempted | unclear for a in actions):
        # "had they closed the jar right before trying to open it, could they still have
        # tried?" asks about a try, not an action the video shows done
        return ADDED_TRIED
    return None


def _names_actions_in_full(template: Template) -> bool:
    """An existence question asks about any such action ("did the person get something from
    the fridge?"), not the one meant, a counterfactual that adds an action names one a viewer
    cannot find when it is not in the video ("had they put something on the shelf"), and "would
    they still have been able to get something from the counter" is true of any other thing on
    the counter (a review found it ill-posed): all name their actions in full, as does a
    template that says so (``actions_in_full``)."""
    return (
        template.actions_in_full
        or template.program.startswith("exist(")
        or ADDING in template.program
        or template.program.startswith("query(executable$")
    )


def _untouched_unseen(
    template: Template, instance: Instance, domain: Domain | None, untouched: Collection[str]
) -> bool:
    """Whether a ``room`` template names a thing the clip's actions leave untouched that is no
    fixture of the world (a cup across the room: whether it is clean is a few small stains), or
    in a state a frame shows only small (english.yaml `caused.untouched`)."""
    named = {kind: instance.values[name] for name, kind in template.params.items()}
    obj, value = named.get(ParamType.OBJECT), named.get(ParamType.VALUE)
    if obj is None or obj not in untouched:
        return False
    if domain is None or obj not in domain.spec.objects or not domain.spec.objects[obj].fixture:
        return True
    return value is None or not untouched_shown(obj, value)


def _names_fixture(template: Template, instance: Instance, domain: Domain | None) -> bool:
    if domain is None:
        return False
    objects = domain.spec.objects
    return any(
        instance.values[name] in objects and objects[instance.values[name]].fixture
        for name, kind in template.params.items()
        if kind is ParamType.OBJECT and name in instance.values
    )


def _tried_not_done(
    view: ClipView, outcome_of: Mapping[str, str], attempted: frozenset[str]
) -> frozenset[str]:
    """Action texts someone in the clip only tried (failed or partly done) although the text is
    not said as an attempt (someone else, or a later unseen action, did it in full): "did the
    person open the jar?" would be "yes" by the words and "no" by the video, so no existence
    question names them. A text tried and then done in the clip is left out too, to be safe."""
    tried = {
        text
        for interval in (*view.observed, *view.others)
        if outcome_of.get(interval.id, "done") != "done"
        for text in interval.value("hoi")
    }
    return frozenset(tried - attempted)


def _direct_form(
    clip: str, template: Template, instance: Instance, owner: str | None
) -> str | None:
    """The id the question would have with its object reference said directly: the variant
    ``<template>/<reference>-<param>`` of ``<template>``, with ``<param>`` the object the
    reference comes to on this clip (indirect.py names variants so)."""
    if owner is None or template.reference != "indirect" or "/" not in template.id:
        return None
    base, _, variant = template.id.rpartition("/")
    name = variant.rpartition("-")[2]
    return question_id(clip, base, {**instance.values, name: owner})


def _engine_counts(engines: Engines) -> dict[str, int]:
    """What the engines' searches rejected so far, by reason."""
    return {
        "degenerate": sum(engine.degenerate for engine, _ in engines),
        REPEATED: sum(engine.repeated for engine, _ in engines),
        "presupposition fails": sum(engine.unpresupposed for engine, _ in engines),
        FIXED: sum(engine.fixed_skipped for engine, _ in engines),
    }


Engines = list[tuple[Instantiator, dict[int, Instantiator]]]
_ENGINES: dict[tuple[tuple[str, ...], int], Engines] = {}


def _engines(templates: tuple[Template, ...], obfuscation: int) -> Engines:
    """The compiled templates, built once per process rather than once per recording."""
    key = (tuple(t.digest() for t in templates), obfuscation)
    if key not in _ENGINES:
        _ENGINES.clear()  # one template set at a time; a stale one would only hold memory
        _ENGINES[key] = [(Instantiator(t), _obfuscated(t, obfuscation)) for t in templates]
    return _ENGINES[key]


def _obfuscated(template: Template, most: int) -> dict[int, Instantiator]:
    """Engines for the template with action references matched on hidden objects, by level."""
    actions = [n for n, kind in template.params.items() if kind in ACTION_PARAMS]
    if not actions or _names_actions_in_full(template):
        return {}
    variants: dict[int, Instantiator] = {}
    for level in range(most, 0, -1):
        program = template.program
        for name in actions:
            program = program.replace(f"hoi@{{{name}}}", f"{HIDDEN_FIELD[level]}@{{{name}}}")
        variants[level] = Instantiator(template.model_copy(update={"program": program}))
    return variants


HIDDEN_FIELD = {1: "action1", 2: "action"}


OBJECTLESS = "obfuscation level refused: action without object"
SOMETHINGS = "obfuscation level refused: more than two somethings"
MOST_HIDDEN = 2  # "something"s one question may say


def _hide_objects(
    engine: Instantiator,
    variants: dict[int, Instantiator],
    instance: Instance,
    view: ClipView,
    space: SampleSpace,
    memo: Memo,
    refused: Counter[str],
) -> tuple[int, dict[str, str]]:
    """The most objects that can be hidden without changing the answer, and the values then.

    As in EgoTaskQA's release, an action is referred to with its first objects said as
    "something" whenever that still picks out the same action and gives the same answer; but
    an action always keeps one object named ("getting something from something" says nothing),
    and a question says "something" at most twice. Refused levels are counted in ``refused``.
    """
    actions = [instance.values[name] for name in engine.action_params]
    # a thing the question names is never said as "something" in its action: "when the person
    # turned off something with the remote, why was the TV on?" hides the TV it then names
    named = {
        value
        for name, value in instance.values.items()
        if engine.template.params.get(name) is ParamType.OBJECT
    }
    for level, variant in variants.items():
        if any(len(parse_action_text(a).objects()) <= level for a in actions):
            refused[OBJECTLESS] += 1
            continue
        if any(named & set(parse_action_text(a).objects()[:level]) for a in actions):
            continue
        if level * len(actions) > MOST_HIDDEN:
            refused[SOMETHINGS] += 1
            continue
        shown = {
            name: space.hidden[value][level - 1] if name in variant.action_params else value
            for name, value in instance.values.items()
        }
        if variant.answer_for(view, shown, memo) == instance.answer:
            return level, shown
    return 0, dict(instance.values)


def _question(
    recording: str,
    clip: str,
    agent: str,
    engine: Instantiator,
    instance: Instance,
    shown: dict[str, str],
    level: int,
    config: GenerationConfig,
    speaker: Speaker,
    people: int,
    attempted: frozenset[str] = frozenset(),
    direct_equiv: str | None = None,
) -> Question | None:
    template = engine.template
    identifier = question_id(clip, template.id, dict(instance.values))
    # one wording per template and shown parameters, not per clip: balancing pairs answers
    # within one exact text, so a text chosen per clip would split every group in two
    wording = "\x1f".join(f"{k}={v}" for k, v in sorted(shown.items()))
    variant = derive_seed(config.seed, template.id, wording) % len(template.texts)
    attempts = frozenset(
        name
        for name, kind in template.params.items()
        if kind in ACTION_PARAMS and instance.values[name] in attempted
    )
    text = speaker.render(template.texts[variant], shown, template.params, people, attempts)
    if template.semantic == "object" and (
        _mentions(text, instance.answer) or _mentions(text, speaker.noun(instance.answer))
    ):
        return None  # the question would give its answer away
    form = template.answer_form
    values = instance.values
    said = spoken_answer(engine.program, instance.answer, speaker, attempted, values=values)
    answer = in_form(
        spoken_answer(engine.program, instance.answer, speaker, attempted, form, values=values),
        form,
    )
    # the bare action ("put the egg ..." for "to put the egg ..." or "putting the egg ..."), the
    # action or object in its own words ("pour from the watering can into the plant" for "water
    # the plant", "the cereal" for "the cereal box") and the world's own form ("put kettle to
    # counter") stay right answers
    plain = spoken_answer(
        engine.program, instance.answer, speaker, attempted, phrased=False, values=values
    )
    raw = () if engine.program.nodes[-1].function == "cause" else (instance.answer,)  # "start"
    aliases = [a for a in dict.fromkeys((said, plain, *raw)) if a != answer]
    graph = engine.filled_graph(shown)
    return Question.model_construct(
        id=identifier,
        recording=recording,
        clip=clip,
        agent=agent,
        template=template.id,
        question=text,
        program=engine.filled_text(shown),
        program_graph=graph,
        answer=answer,
        answer_aliases=aliases,
        answer_kind=answer_kind(answer),
        answer_form=template.answer_form,
        answer_choices=answer_choices(
            graph[-1]["arguments"], answer in BINARY_ANSWERS, graph[-1]["function"]
        ),
        types=list(template.types),
        scopes=list(template.scopes),
        semantic=template.semantic,
        structural=template.structural,
        reference=template.reference,
        steps=engine.steps,
        obfuscation=level,
        params=shown,
        direct_equiv=direct_equiv,
    )


SAME_TEXT = "same text as another question of the clip"
SAME_TEXT_OTHER_ANSWER = "same text as another question of the clip, other answer"


def _one_per_text(questions: list[Question], rejected: Counter[str]) -> list[Question]:
    """One question per text on a clip. Wording that leaves out what tells two templates apart
    (an attribute named by its value, an object said as "it") can give two questions one
    text: with the same answer the first is kept; with different answers the text has no one
    answer, so none is."""
    answers: dict[str, set[str]] = {}
    for question in questions:
        answers.setdefault(question.question, set()).add(question.answer)
    kept: list[Question] = []
    seen: set[str] = set()
    for question in questions:
        if len(answers[question.question]) > 1:
            rejected[SAME_TEXT_OTHER_ANSWER] += 1
        elif question.question in seen:
            rejected[SAME_TEXT] += 1
        else:
            seen.add(question.question)
            kept.append(question)
    return kept


RESTATES = "answer restates the question"


def _restates(instance: Instance, template: Template) -> bool:
    """The answer is an action whose verb just makes a value the question names ("how did the
    stove end up off?" -> "turn off the stove")."""
    if not template.program.startswith("query(hoi$"):
        return False
    verb = parse_action_text(instance.answer).verb
    restating = words().value_verbs
    return any(
        verb in restating.get(instance.values[name], ())
        for name, kind in template.params.items()
        if kind is ParamType.VALUE
    )


def _opens_what_is_named(instance: Instance, template: Template) -> bool:
    """The answer only opens, closes or switches a thing the question's action names ("what
    did the person do just before they got something from the drawer?" -> "open the drawer"):
    common sense gives it without the video, as a review from the frames found."""
    if not template.program.startswith("query(hoi$"):
        return False
    answer = parse_action_text(instance.answer)
    if not any(answer.verb in verbs for verbs in words().value_verbs.values()):
        return False
    named = {
        o
        for name, kind in template.params.items()
        if kind in ACTION_PARAMS
        for o in parse_action_text(instance.values[name]).objects()
    }
    return bool(named) and set(answer.objects()) <= named


def _mentions(text: str, answer: str) -> bool:
    return re.search(rf"\b{re.escape(answer)}\b", text, flags=re.IGNORECASE) is not None


def _recording_lines(
    templates: Sequence[Template],
    config: GenerationConfig,
    verb_templates: dict[str, str] | None,
    world: World,
    recording_json: str,
) -> Shard:
    recording = Recording.model_validate_json(recording_json)
    rejected: Counter[str] = Counter()
    questions = questions_for_recording(
        recording, templates, config, verb_templates, rejected, world
    )
    # json.dumps of the field dict is several times faster than pydantic's dump here, and
    # `taskqa check` reads every line back through the Question model. One string per recording
    # (and counters, not per-question tags) keeps what workers send back cheap to transfer.
    text = "".join(record_line(_record(q)) for q in questions)
    counts: Counter[str] = Counter()
    for question in questions:
        counts.update(_tags(question))
    return text, counts, rejected


def _record(question: Question) -> dict[str, Any]:
    record = dict(question.__dict__)
    del record["split"]  # only a built benchmark's split files say which split a question is in
    return record


def generate_file(
    recordings: Sequence[Recording],
    templates: Sequence[Template],
    out: Path,
    config: GenerationConfig,
    verb_templates: dict[str, str] | None = None,
    workers: int = 1,
    on_progress: Callable[[int], None] | None = None,
    domain: Domain | None = None,
    execution: Execution | None = None,
    journal: Path | None = None,
) -> dict[str, Any]:
    """Write every question to ``out`` (JSONL) and its summary beside it; return the summary.

    ``domain`` is the world the corpus was simulated in; without it a simulated corpus is taken
    to come from the built-in domain, and other corpora get no schema-based rules. One shard is
    one recording; ``execution`` says where shards run (default: ``workers`` local processes)
    and ``journal`` is the folder that records finished shards for ``execution.resume``.
    """
    if config.indirect:
        templates = with_indirect(templates)
    execution = execution or Execution(workers=workers)
    world = corpus_world(recordings, domain)
    context: GenerationContext = (list(templates), config, verb_templates, world)
    payloads = [r.model_dump_json() for r in recordings]
    labels = [f"{index} (recording {r.id})" for index, r in enumerate(recordings)]
    counts: Counter[str] = Counter()
    rejected: Counter[str] = Counter()
    temporary = out.with_name(f".{out.name}.partial")
    out.parent.mkdir(parents=True, exist_ok=True)
    shards = None
    if journal is not None:
        settings = [[t.digest() for t in templates], config.model_dump(mode="json")]
        run = fingerprint("generate", json.dumps([settings, verb_templates, world]), *payloads)
        shards = ShardJournal(journal, run, len(payloads), execution.resume)
    with execution.open() as executor, temporary.open("w", encoding="utf-8") as stream:
        results = run_shards(
            executor, _generate_shard, context, payloads, labels, shards, _encode, _decode
        )
        for text, counted, dropped in results:
            stream.write(text)
            counts.update(counted)
            rejected.update(dropped)
            if on_progress:
                on_progress(1)
    temporary.replace(out)
    summary = {
        "taskqa_version": __version__,
        "config": config.model_dump(mode="json"),
        "templates": {t.id: t.digest() for t in templates},
        "recordings": len(recordings),
        "counts": dict(sorted(counts.items())),
        "rejected": dict(sorted(rejected.items())),
    }
    write_json(summary_path(out), summary)
    write_jsonl(
        clips_path(out),
        (
            clip_record(clip, config.model_dump(mode="json"))
            for recording in recordings
            for clip in cut_clips(recording, config.clips)
        ),
    )
    if shards is not None:
        shards.finish()
    return summary


# What every generation shard shares: templates, config, verb templates and the world.
GenerationContext = tuple[list[Template], GenerationConfig, dict[str, str] | None, World]


def _generate_shard(context: GenerationContext, recording_json: str) -> Shard:
    return _recording_lines(*context, recording_json)


def _encode(shard: Shard) -> bytes:
    return json.dumps(shard, ensure_ascii=False).encode("utf-8")


def _decode(data: bytes) -> Shard:
    text, counts, rejected = json.loads(data)
    return text, Counter(counts), Counter(rejected)


def summary_path(questions: Path) -> Path:
    return questions.with_name(questions.name.removesuffix(".jsonl") + ".summary.json")


def clips_path(questions: Path) -> Path:
    """The clips file generation writes beside a questions file: every clip it cut."""
    return questions.with_name(questions.name.removesuffix(".jsonl") + ".clips.jsonl")


def _tags(question: Question) -> list[str]:
    """The summary counters one question adds to."""
    return [
        "questions",
        f"answer_kind/{question.answer_kind}",
        f"structural/{question.structural}",
        f"semantic/{question.semantic}",
        f"reference/{question.reference}",
        f"template/{question.template}",
        *(f"type/{tag}" for tag in question.types),
        *(f"scope/{tag}" for tag in question.scopes),
    ]
