"""Generation cut down to some question texts: what a minimal pair asks of its second recording.

A minimal pair is one question text asked on the same clip window of two recordings, so the
second recording needs only the questions whose text the first one asked there
(benchmark/pairs.py). ``questions_for_recording(texts=...)`` asks only those, and this module
tells the instantiation (instantiate.py ``Narrowing``) which templates and parameter values can
still give one of them, before any of their programs runs.

The test is on words. A question's text is a template text with each slot filled with its
parameter's words, then changed only so: an object named twice is "it" the second time (its
words stay where it was named first), "they", "their" and "them" may become "the person" ("the
person's"), a phrasal verb takes "it" before its particle, runs of spaces become one and the
first letter a capital. So every word of a template text's literal pieces and of each slot's
filling is a word of the question, but for "the", "they", "their", "them" and "it", and case.
A template text, or a parameter value, whose words are in none of the wanted texts cannot give
one and is left out; all else is asked as without the narrowing, so the questions with a
wanted text are exactly those generation gives without it, the same-text rule included.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from functools import lru_cache

from taskqa.questions.instantiate import Narrowing
from taskqa.questions.realize import Speaker, text_literals, text_params
from taskqa.questions.template import ACTION_PARAMS, ParamType, Template
from taskqa.questions.words import Unsayable

_WORD = re.compile(r"\w+")
# words rendering may drop from a question or put into it (see the module's docstring)
MAY_CHANGE = frozenset({"the", "they", "their", "them", "it"})


def question_words(text: str) -> frozenset[str]:
    """The words of ``text`` a question keeps whatever happens around them, in lower case."""
    return frozenset(_WORD.findall(text.lower())) - MAY_CHANGE


# A template text's shape: the words its literal pieces always give, and the forms each
# parameter is said in by a slot that stands apart from the text's letters.
Shape = tuple[frozenset[str], Mapping[str, tuple[str | None, ...]]]


@lru_cache(maxsize=4096)
def text_shape(text: str) -> Shape:
    """The words and slots of a template text a question's words can be checked against.

    A word glued to a slot ("{o}s") is no whole word of the question, and a slot glued to a
    letter gives none of its own: both are left out, which only checks less.
    """
    pieces = text_literals(text)
    slots = text_params(text)
    words: set[str] = set()
    for index, piece in enumerate(pieces):
        found = _WORD.findall(piece.lower())
        if found and index > 0 and _WORD.match(piece):
            found = found[1:]  # glued to the slot before it
        if found and index < len(slots) and _WORD.match(piece[-1:]):
            found = found[:-1]  # glued to the slot after it
        words.update(found)
    forms: dict[str, list[str | None]] = {}
    for index, (name, form) in enumerate(slots):
        before, after = pieces[index], pieces[index + 1]
        glued_before = _WORD.match(before[-1:]) or (index > 0 and not before)
        glued_after = _WORD.match(after[:1]) or (index + 1 < len(slots) and not after)
        if not glued_before and not glued_after:
            forms.setdefault(name, []).append(form)
    return frozenset(words) - MAY_CHANGE, {name: tuple(said) for name, said in forms.items()}


class WantedTexts:
    """The question texts wanted on one clip, each a bit of a mask, and which templates and
    parameter values may still give them (``narrowing``)."""

    def __init__(self, texts: Collection[str]) -> None:
        self.texts = frozenset(texts)
        self._holding: dict[str, int] = {}  # a word -> the wanted texts that hold it
        for bit, text in enumerate(sorted(self.texts)):
            for word in question_words(text):
                self._holding[word] = self._holding.get(word, 0) | 1 << bit
        self._held: dict[frozenset[str], int] = {}
        self._said: dict[tuple[ParamType, str | None, str, bool], frozenset[str]] = {}

    def __bool__(self) -> bool:
        return bool(self.texts)

    def holding(self, words: frozenset[str]) -> int:
        """The wanted texts that hold every one of ``words`` (-1, every bit, for none)."""
        found = self._held.get(words)
        if found is None:
            found = -1
            for word in words:
                found &= self._holding.get(word, 0)
                if not found:
                    break
            self._held[words] = found
        return found

    def narrowing(
        self,
        template: Template,
        levels: Iterable[int],
        speaker: Speaker,
        people: int,
        attempted: frozenset[str],
        hidden: Mapping[str, tuple[str, str]],
    ) -> Narrowing:
        """What of ``template`` may give a wanted text on the clip: ``levels`` are the
        obfuscation levels an action may be said at (its objects as "something", ``hidden``:
        the sample space's), ``attempted`` the actions said as tries."""
        shapes = [(self.holding(words), forms) for words, forms in map(text_shape, template.texts)]
        possible = 0
        for literal, _ in shapes:
            possible |= literal
        hiding = tuple(levels)
        fitting: dict[tuple[str, str], int] = {}

        def fits(name: str, value: str) -> int:
            key = (name, value)
            if key in fitting:
                return fitting[key]
            kind = template.params[name]
            shown = [value]
            if kind in ACTION_PARAMS and value in hidden:
                shown += [hidden[value][level - 1] for level in hiding]
            attempt = kind in ACTION_PARAMS and value in attempted
            mask = 0
            for literal, forms in shapes:
                said_in = forms.get(name)
                if not said_in:
                    mask |= literal  # this text does not say the value: it leaves all open
                    continue
                for said in shown:
                    left = literal
                    for form in said_in:
                        words = self._words(speaker, people, kind, form, said, attempt)
                        left &= self.holding(words)
                    mask |= left
            fitting[key] = mask
            return mask

        return Narrowing(possible, fits)

    def _words(
        self,
        speaker: Speaker,
        people: int,
        kind: ParamType,
        form: str | None,
        value: str,
        attempt: bool,
    ) -> frozenset[str]:
        """The words a slot of ``kind`` in ``form`` fills in for ``value`` (none where it has no
        words: generation drops such a question, and no words check nothing)."""
        key = (kind, form, value, attempt)
        found = self._said.get(key)
        if found is None:
            slot = "{p}" if form is None else f"{{p:{form}}}"
            tried = frozenset({"p"}) if attempt else frozenset()
            try:
                said = speaker.render(slot, {"p": value}, {"p": kind}, people, tried)
            except Unsayable:
                said = ""  # no question says it (generation drops them): no words check nothing
            found = question_words(said)
            self._said[key] = found
        return found
