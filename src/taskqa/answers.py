"""Answer normalization: the rules that decide when a prediction equals an answer.

The rules are versioned. ``NORMALIZATION_VERSION`` is written into every results file, and any
change to the rules (even one that only fixes a corner case) must bump it, because it can change
scores. Both the prediction and the reference answer go through the same function, so a rule can
never make a correct answer wrong on its own side only.

Used by ``taskqa evaluate`` (``taskqa.evaluation``), the chat adapters, the studio and the
lmms-eval export (``taskqa.benchmark.export_lmms``), which copies this file's source verbatim
into the task folder as ``taskqa_normalize.py`` so that lmms-eval scores exactly as
``taskqa evaluate`` does. That copy runs without taskqa installed, so this module imports only
the standard library (never anything from taskqa) and defines no dataclasses (lmms-eval loads
it from its file path, outside ``sys.modules``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

NORMALIZATION_VERSION = "2"

NORMALIZATION_RULES = (
    "Unicode NFKC, then case-folded",
    "every punctuation character (Unicode category P*, hyphens and apostrophes included) "
    "becomes a space",
    "the articles a, an and the are removed as whole words",
    "runs of whitespace become one space; leading and trailing whitespace is removed",
    "a whole answer that is a yes/no synonym becomes yes or no "
    "(yes: y, yeah, yep, true, correct; no: n, nope, false, incorrect)",
    "a whole answer that is an attribute value in EgoTaskQA's released words becomes the plain "
    "word questions use (boiled: hot, part: cut, fluid: liquid)",
)

YES_SYNONYMS = frozenset({"yes", "y", "yeah", "yep", "true", "correct"})
NO_SYNONYMS = frozenset({"no", "n", "nope", "false", "incorrect"})
ARTICLES = frozenset({"a", "an", "the"})
# EgoTaskQA's value words -> the plain words taskqa's answers use (questions/english.yaml)
PLAIN_VALUES = {"boiled": "hot", "part": "cut", "fluid": "liquid"}
_SPACES = re.compile(r"\s+")


def _is_punctuation(character: str) -> bool:
    return unicodedata.category(character).startswith("P")


def normalize_answer(text: str) -> str:
    """The comparable form of an answer (``"The Cup."`` -> ``"cup"``, ``"True"`` -> ``"yes"``)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    spaced = "".join(" " if _is_punctuation(c) else c for c in folded)
    words = [w for w in _SPACES.split(spaced) if w and w not in ARTICLES]
    joined = " ".join(words)
    if joined in YES_SYNONYMS:
        return "yes"
    if joined in NO_SYNONYMS:
        return "no"
    return PLAIN_VALUES.get(joined, joined)


class Normalizer:
    """``normalize_answer`` with a memo: predictions repeat a small vocabulary many times."""

    def __init__(self) -> None:
        self._memo: dict[str, str] = {}

    def __call__(self, text: str) -> str:
        found = self._memo.get(text)
        if found is None:
            found = normalize_answer(text)
            self._memo[text] = found
        return found


def collisions(answers: Iterable[str]) -> dict[str, list[str]]:
    """Distinct answers that normalize to the same form (they become interchangeable)."""
    forms: dict[str, set[str]] = {}
    for answer in answers:
        forms.setdefault(normalize_answer(answer), set()).add(answer)
    return {form: sorted(group) for form, group in sorted(forms.items()) if len(group) > 1}


# --- multiple choice ---------------------------------------------------------------------------
# The letters options are named by, and how a reply names one: ``taskqa evaluate --mc`` and the
# lmms-eval export (which copies this module) read replies the same way.
LETTERS = "ABCDEFGH"
_LETTER = re.compile(r"^\(?([A-H])\)?(?:[.):]|\s|$)")
_STATED = re.compile(r"\b(?:answer|option)\s*(?:is|:)?\s*\(?([A-H])\b\)?", re.IGNORECASE)


def parse_choice(prediction: str | None, options: Sequence[str]) -> int | None:
    """The option a model's reply picks: a letter (``B``, ``(B)``, ``B. cup``, ``The answer is
    B``) or an option's text; None when it names none or several."""
    if prediction is None:
        return None
    text = prediction.strip()
    found = _LETTER.match(text) or _STATED.search(text)
    if found is not None:
        index = LETTERS.index(found.group(1).upper())
        return index if index < len(options) else None
    said = normalize_answer(text)
    named = [i for i, option in enumerate(options) if normalize_answer(option) == said]
    if len(named) == 1:
        return named[0]
    mentioned = [
        i for i, option in enumerate(options) if f" {normalize_answer(option)} " in f" {said} "
    ]
    return mentioned[0] if len(mentioned) == 1 else None
