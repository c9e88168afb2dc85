"""A corpus's world, opened once: its recordings, its own domain, its clip views, and its stored
questions asked again.

Every stage that runs a stored program after generation (``taskqa check``, the oracle, the
evidence audit, the self-check, the grounding check, minimal pairs) needs the same three things,
and each used to build them its own way, so a user's own domain file could be read as the
built-in one at one stage and not another. Here they are written once:

- ``CorpusWorld.open(path)``: the recordings plus the corpus's domain, under the one rule of
  ``simulation.corpus.corpus_domain`` (the folder's ``domain.yaml``; the built-in world only for
  the built-in world's own recordings);
- ``CorpusWorld.views(recording, clips, file)``: the clip views programs run on, one causal
  structure per generation setting;
- ``CorpusWorld.ask(items, clips, file)``: each stored question on its clip, ready to say what
  its program answers there (or on a changed view of it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from taskqa.causal import CausalStructure, DependencyRules, build_structure
from taskqa.model import Recording
from taskqa.problems import InvalidInputError, problems_from_validation_error
from taskqa.programs import Program, parse_program
from taskqa.programs.clips import ClipRecord
from taskqa.programs.records import ClipView, build_view
from taskqa.questions.answers import answer, attempted_actions
from taskqa.questions.config import GenerationConfig
from taskqa.questions.realize import Speaker
from taskqa.questions.schemas import SchemaKnowledge
from taskqa.questions.wellposed import Rules
from taskqa.simulation.corpus import builtin_domain_for, corpus_domain
from taskqa.simulation.domain import Domain, parse_domain

# What generation knows of the corpus's world: the domain file's text and name (None: the
# corpus has no domain, so no schema rules and no "holds") and the verbs that failed somewhere
# in the corpus. Plain strings, so that it travels to worker processes cheaply.
World = tuple[str | None, str, tuple[str, ...]]
NO_WORLD: World = (None, "", ())


@dataclass(frozen=True)
class Wording:
    """The rules, the speaker and the domain of one world, built once per process."""

    rules: Rules
    speaker: Speaker
    domain: Domain | None = None  # whose schemas decide dependencies in simulated recordings


_WORDINGS: dict[World, Wording] = {}


def wording(world: World) -> Wording:
    """The rules, speaker and domain of ``world`` (parsed once per process)."""
    if world not in _WORDINGS:
        source, name, fallible = world
        domain = parse_domain(source, name) if source is not None else None
        knowledge = SchemaKnowledge.of(domain, fallible) if domain else None
        holds = {o: s.holds or "other" for o, s in domain.spec.objects.items()} if domain else {}
        said = {t: s.said for t, s in domain.spec.tasks.items() if s.said} if domain else {}
        _WORDINGS[world] = Wording(Rules(knowledge), Speaker(holds, said), domain)
    return _WORDINGS[world]


def corpus_world(recordings: Sequence[Recording], domain: Domain | None = None) -> World:
    """The world of ``recordings``: ``domain``, else the built-in one where the recordings are
    its own (``builtin_domain_for``), else none (no schema rules rather than wrong ones)."""
    domain = domain if domain is not None else builtin_domain_for(recordings)
    fallible = sorted({a.verb for r in recordings for a in r.actions if a.outcome != "done"})
    if domain is None:
        return (None, "", tuple(fallible))
    return (domain.source_text, domain.file_name, tuple(fallible))


def generation_of(record: ClipRecord, file: str) -> GenerationConfig:
    """The generation settings a clip record carries (how its questions were made)."""
    try:
        return GenerationConfig.model_validate(record.generation)
    except ValidationError as error:
        where: list[str | int] = [record.id, "generation"]
        raise InvalidInputError(problems_from_validation_error(file, where, error)) from None


@dataclass(frozen=True)
class Asked:
    """One stored question on its clip: what its program answers there, or on a changed view
    of the clip (the evidence audit asks with one action at a time)."""

    position: int  # in the items given to ``ask``
    item: Any
    recording: Recording
    view: ClipView
    program: Program
    attempted: frozenset[str]  # the clip's action texts only tried, as generation saw them
    form: str
    speaker: Speaker

    def answer(self, view: ClipView | None = None) -> str | None:
        """The program's answer, said as generation said it, on ``view`` (default: its clip)."""
        seen = self.view if view is None else view
        return answer(self.program, seen, self.speaker, self.attempted, self.form)


@dataclass(frozen=True)
class Unasked:
    """A stored question that cannot be asked: its recording or its clip is not there."""

    position: int
    item: Any
    field: str  # "recording" or "clip"
    message: str


@dataclass(frozen=True)
class CorpusWorld:
    """Recordings with their verb templates and the world they come from."""

    recordings: tuple[Recording, ...]
    verb_templates: Mapping[str, str] | None = None
    domain: Domain | None = None
    _programs: dict[str, Program] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def open(cls, corpus: Path) -> CorpusWorld:
        """A corpus folder (or EgoTaskQA/LEMMA or CaptainCook4D folder) with its own world."""
        from taskqa.convert import read_recordings

        recordings, verb_templates = read_recordings(corpus)
        return cls(tuple(recordings), verb_templates, corpus_domain(corpus, recordings))

    @classmethod
    def of(
        cls,
        recordings: Sequence[Recording],
        verb_templates: Mapping[str, str] | None = None,
        domain: Domain | None = None,
    ) -> CorpusWorld:
        """Recordings in memory: ``domain``, else the built-in world where they are its own."""
        chosen = domain if domain is not None else builtin_domain_for(recordings)
        return cls(tuple(recordings), verb_templates, chosen)

    @cached_property
    def world(self) -> World:
        """The world as generation's workers receive it (see ``corpus_world``)."""
        return corpus_world(self.recordings, self.domain)

    @property
    def speaker(self) -> Speaker:
        """How questions on these recordings say actions, objects and tasks."""
        return wording(self.world).speaker

    @cached_property
    def by_id(self) -> dict[str, Recording]:
        return {r.id: r for r in self.recordings}

    def views(
        self, recording: Recording, clips: Sequence[ClipRecord], file: str
    ) -> dict[str, ClipView]:
        """The views of ``recording``'s clips (``clips``), one causal structure per generation
        setting, on this world's schemas; ``file`` names the clips file in problems."""
        views: dict[str, ClipView] = {}
        structures: dict[DependencyRules, CausalStructure] = {}
        for record in clips:
            rules = generation_of(record, file).rules
            if rules not in structures:
                structures[rules] = build_structure(recording, rules, self.domain)
            views[record.id] = build_view(
                recording, record.clip, structures[rules], self.verb_templates
            )
        return views

    def grouped(
        self, items: Iterable[Any], clips: Mapping[str, ClipRecord], file: str
    ) -> Iterator[tuple[Recording, list[tuple[int, Any]], dict[str, ClipView]]]:
        """Question items (records or ``Question``s) grouped by recording, in the corpus's
        order, each group with the views of that recording's clips; items whose recording is
        not in the corpus are left out (``ask`` reports them)."""
        by_recording: dict[str, list[tuple[int, Any]]] = {}
        for position, item in enumerate(items):
            by_recording.setdefault(_fields(item)[0], []).append((position, item))
        clips_of: dict[str, list[ClipRecord]] = {}
        for clip in clips.values():
            clips_of.setdefault(clip.recording, []).append(clip)
        for recording in self.recordings:
            wanted = by_recording.get(recording.id)
            if wanted:
                yield recording, wanted, self.views(recording, clips_of.get(recording.id, []), file)

    def ask(
        self,
        items: Sequence[Any],
        clips: Mapping[str, ClipRecord],
        file: str,
        changed: Callable[[str, dict[str, ClipView]], dict[str, ClipView]] | None = None,
        on_recording: Callable[[int], None] | None = None,
    ) -> Iterator[Asked | Unasked]:
        """Each item ready to be asked on its clip (``Asked``), or why it cannot be
        (``Unasked``), recording by recording in the corpus's order and then the items whose
        recording is missing. ``changed`` replaces a recording's views before asking (the noisy
        oracle's misread ones); ``on_recording`` is told each recording's item count."""
        speaker = self.speaker
        for position, item in enumerate(items):
            named = _fields(item)[0]
            if named not in self.by_id:
                message = f"no recording {named!r} in the annotations"
                yield Unasked(position, item, "recording", message)
        for recording, wanted, views in self.grouped(items, clips, file):
            if changed is not None:
                views = changed(recording.id, views)
            outcome_of = {action.id: action.outcome for action in recording.actions}
            attempted = {clip: attempted_actions(view, outcome_of) for clip, view in views.items()}
            for position, item in wanted:
                _, clip, program, form = _fields(item)
                view = views.get(clip)
                if view is None:
                    message = f"no clip {clip!r} in {recording.id!r}"
                    yield Unasked(position, item, "clip", message)
                    continue
                parsed = self._program(program)
                yield Asked(position, item, recording, view, parsed, attempted[clip], form, speaker)
            if on_recording is not None:
                on_recording(len(wanted))

    def _program(self, text: str) -> Program:
        if text not in self._programs:
            self._programs[text] = parse_program(text)
        return self._programs[text]


def _fields(item: Any) -> tuple[str, str, str, str]:
    """An item's recording, clip, program and answer form: a question record (a mapping), a
    ``Question``, or anything wrapping one as ``.question`` (a split file's entries)."""
    if isinstance(item, Mapping):
        form = str(item.get("answer_form", "base"))
        return str(item["recording"]), str(item["clip"]), str(item["program"]), form
    question = item if hasattr(item, "recording") else item.question
    return question.recording, question.clip, question.program, question.answer_form
