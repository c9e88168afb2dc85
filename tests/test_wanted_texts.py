"""Generation cut down to wanted question texts (questions/wanted_texts.py): what a minimal
pair's second recording is asked gives exactly the questions full generation gives there."""

from __future__ import annotations

import random
from collections import Counter

from taskqa.model import Recording
from taskqa.programs.clips import Clip, cut_clips
from taskqa.questions.config import GenerationConfig
from taskqa.questions.generate import questions_for_recording
from taskqa.questions.indirect import with_indirect
from taskqa.questions.records import Question
from taskqa.questions.template import load_templates
from taskqa.questions.wanted_texts import question_words, text_shape
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import run_episode
from taskqa.simulation.domain import Domain
from taskqa.simulation.intervene import variants

CONFIG = GenerationConfig()
TEMPLATES = with_indirect(load_templates())


def _by_clip(questions: list[Question]) -> dict[str, list[dict[str, object]]]:
    found: dict[str, list[dict[str, object]]] = {}
    for question in questions:
        found.setdefault(question.clip, []).append(dict(question.__dict__))
    return found


def test_asked_for_some_texts_it_gives_exactly_the_questions_with_them(
    small_corpus: list[Recording],
) -> None:
    draw = random.Random(3)
    # and some with actions only tried or partly done
    tried = [r for r in small_corpus if any(a.outcome != "done" for a in r.actions)]
    for recording in [*small_corpus[:3], *tried[:4]]:
        everything: Counter[str] = Counter()
        full = questions_for_recording(recording, TEMPLATES, CONFIG, rejected=everything)
        texts = [q.question for q in full]
        # on each clip some of its own texts and some of other clips' (which may not be there)
        wanted = {
            clip.id: set(draw.sample(texts, min(len(texts), 25)))
            for clip in cut_clips(recording, CONFIG.clips)
        }

        def on(clip: Clip, wanted: dict[str, set[str]] = wanted) -> set[str]:
            return wanted[clip.id]

        asked: Counter[str] = Counter()
        narrowed = questions_for_recording(recording, TEMPLATES, CONFIG, rejected=asked, texts=on)
        expected = [q for q in full if q.question in wanted[q.clip]]
        assert _by_clip(narrowed) == _by_clip(expected)
        # and what cannot give a wanted text is not asked at all
        assert sum(asked.values()) < sum(everything.values())


def test_a_second_recording_asked_the_first_ones_texts_gives_the_same_questions(
    domain: Domain,
) -> None:
    """The minimal pairs' case: a changed recording asked, on each clip window, the texts its
    first recording asked there (clip windows are the same in both)."""
    for episode in (1, 4):
        run = run_episode(domain, SimulationConfig(episodes=8, seed=5), episode)
        first = run.recording()
        windows = {clip.id: clip.start for clip in cut_clips(first, CONFIG.clips)}
        asked_first: dict[tuple[str, float], set[str]] = {}
        for question in questions_for_recording(first, TEMPLATES, CONFIG):
            asked_first.setdefault((question.agent, windows[question.clip]), set()).add(
                question.question
            )
        for variant in list(variants(run, per_kind=1, seed=0))[:3]:
            second = variant.recording

            def on(clip: Clip, asked: dict[tuple[str, float], set[str]] = asked_first) -> set[str]:
                return asked.get((clip.agent, clip.start), set())

            full = questions_for_recording(second, TEMPLATES, CONFIG)
            starts = {clip.id: clip.start for clip in cut_clips(second, CONFIG.clips)}
            expected = [
                q for q in full if q.question in asked_first.get((q.agent, starts[q.clip]), set())
            ]
            narrowed = questions_for_recording(second, TEMPLATES, CONFIG, texts=on)
            assert expected  # the case is not empty
            assert _by_clip(narrowed) == _by_clip(expected)


def test_a_template_text_checks_only_whole_words() -> None:
    words, forms = text_shape("Did they put {o}s on the {a:base} before {b}{c}?")
    # "s" is glued to {o}; {o} gives no whole word, nor do {b} and {c}, glued to each other
    assert words == {"did", "put", "on", "before"}
    assert forms == {"a": ("base",)}
    assert question_words("It was THE Person's cup; they took it") == {
        "was",
        "person",
        "s",
        "cup",
        "took",
    }
