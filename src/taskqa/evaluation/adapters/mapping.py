"""Free-form replies mapped onto the benchmark's closed answer vocabulary.

Rules, tried in order (each after the answer normalization of ``taskqa.answers``):

1. ``normalized``: the whole reply is a vocabulary answer;
2. ``first-line``: the reply's first line, without a leading ``answer:`` and anything after the
   first sentence end, is a vocabulary answer;
3. ``yes-no``: the reply starts with the word yes or no (``Yes, they can.``) and that word is in
   the vocabulary.

Nothing looser (no substring search): a reply that names two answers must not be scored as the
first one it happens to contain. A reply no rule maps is *invalid* unless the optional LLM
extraction step (the ``extract.txt`` prompt) names a candidate that maps by rule 1.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from taskqa.answers import normalize_answer
from taskqa.questions.tags import BINARY_ANSWERS

_PREFIX = re.compile(r"^\s*(?:final\s+)?answer\s*[:\-]\s*", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[a-z0-9])[.!?](?:\s|$)", re.IGNORECASE)
MAX_CANDIDATES = 60


class AnswerMapper:
    def __init__(self, vocabulary: Iterable[str]) -> None:
        self.by_form: dict[str, str] = {}
        for answer in sorted(vocabulary):
            self.by_form.setdefault(normalize_answer(answer), answer)

    def map(self, reply: str) -> tuple[str | None, str | None]:
        """The vocabulary answer a reply gives and the rule that found it, or (None, None)."""
        whole = self.by_form.get(normalize_answer(reply))
        if whole is not None:
            return whole, "normalized"
        line = reply.strip().splitlines()[0] if reply.strip() else ""
        line = _SENTENCE_END.split(_PREFIX.sub("", line), maxsplit=1)[0]
        first = self.by_form.get(normalize_answer(line))
        if first is not None:
            return first, "first-line"
        words = normalize_answer(line).split(" ")
        if words and words[0] in BINARY_ANSWERS and words[0] in self.by_form:
            return self.by_form[words[0]], "yes-no"
        return None, None

    def candidates(self, reply: str) -> list[str]:
        """Answers to offer the extraction prompt: all of a small vocabulary, else those sharing
        a word with the reply (most shared words first), at most ``MAX_CANDIDATES``."""
        if len(self.by_form) <= MAX_CANDIDATES:
            return sorted(self.by_form.values())
        words = set(normalize_answer(reply).split())
        scored = [
            (-len(words & set(form.split())), answer)
            for form, answer in self.by_form.items()
            if words & set(form.split())
        ]
        return [answer for _, answer in sorted(scored)[:MAX_CANDIDATES]]
