"""The tags of a question record, defined once: reasoning type, binary answers, breakdowns.

A question record (``records.Question``, or its JSON object in a candidates or split file)
carries EgoTaskQA's tags: every ``types`` and ``scopes`` entry, then ``semantic``,
``structural`` and ``reference``. Balancing, splitting, the build's diagnostics and report, the
exports and every scorer group questions by them; they all read them through this module, so
that a reasoning type or a yes/no answer means one thing everywhere.

Functions take the record as a mapping (a parsed JSON line, or ``vars(question)`` of a
``Question``), since the build works on the raw records and evaluation on ``Question``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # records.py imports this module; the breakdowns only name its type
    from taskqa.questions.records import Question

Record = Mapping[str, Any]
AnswerKind = Literal["binary", "open"]

BINARY_ANSWERS = frozenset({"yes", "no"})
# joins the tags into EgoTaskQA's reasoning-type string, as its split files hold it
TAG_SEPARATOR = "$"
# each tag axis (a breakdown's name) with the record field that holds its tags, in the order
# EgoTaskQA's reasoning-type string lists them
TAG_AXES: tuple[tuple[str, str], ...] = (
    ("type", "types"),
    ("scope", "scopes"),
    ("semantic", "semantic"),
    ("structural", "structural"),
    ("reference", "reference"),
)
TagAxis = Literal["type", "scope", "semantic", "structural", "reference"]
# each tag's axis, as templates declare them (questions/template.py); no tag is on two axes, so
# a reasoning-type string says which categories it counts in
AXIS_OF_TAG: dict[str, str] = {
    **dict.fromkeys(("descriptive", "predictive", "counterfactual", "explanatory"), "type"),
    **dict.fromkeys(("world", "intent", "multi-agent"), "scope"),
    **dict.fromkeys(("action", "object", "state", "change"), "semantic"),
    **dict.fromkeys(("query", "verify"), "structural"),
    **dict.fromkeys(("direct", "indirect"), "reference"),
}
# what a structural tag says of the answer: a query asks for an open answer, a verify question
# for yes or no (read from the question's form, so a blind model may use it)
STRUCTURAL_KIND = {"query": ("open",), "verify": ("binary",)}


def answer_kind(answer: str) -> AnswerKind:
    """``binary`` for a yes/no answer, ``open`` for any other."""
    return "binary" if answer in BINARY_ANSWERS else "open"


MANY_TAGS = frozenset({"types", "scopes"})  # the fields that hold a list of tags


def _field_tags(field: str, value: Any) -> list[str]:
    """The tags a record's ``field`` holds: a list field's entries, another field's value."""
    return [str(tag) for tag in value] if field in MANY_TAGS else [str(value)]


def tags_by_axis(record: Record) -> list[tuple[str, str]]:
    """Every tag of ``record`` with its axis, in EgoTaskQA's order (a question with two types
    has two ``type`` tags)."""
    return [(axis, tag) for axis, field in TAG_AXES for tag in _field_tags(field, record[field])]


def reasoning_tags(record: Record, through: TagAxis = "reference") -> list[str]:
    """The tags of ``record`` in EgoTaskQA's order, up to and including the axis ``through``:
    the whole reasoning type by default; balancing and the generalisation families stratify
    by a shorter key."""
    tags: list[str] = []
    for axis, field in TAG_AXES:
        tags += _field_tags(field, record[field])
        if axis == through:
            break
    return tags


def reasoning_type(record: Record, through: TagAxis = "reference") -> str:
    """EgoTaskQA's ``$``-joined reasoning type of ``record`` (up to the axis ``through``)."""
    return TAG_SEPARATOR.join(reasoning_tags(record, through))


def category_tags(record: Record) -> list[str]:
    """The categories a question counts in, as ``axis/tag`` (every type and scope it carries,
    as EgoTaskQA counts) and ``answer/binary`` or ``answer/open``: the build report's
    breakdown."""
    return [
        *(f"{axis}/{tag}" for axis, tag in tags_by_axis(record)),
        f"answer/{answer_kind(str(record['answer']))}",
    ]


def evidence_groups(question: Question) -> list[str]:
    """A question's frames need (no/one/several frames) and order need, as the evidence audit
    tagged them; ``not audited`` for a benchmark built before the audit."""
    tags = set(question.evidence)
    if not tags:
        return ["not audited"]
    frames = (
        "no frame"
        if "no-frame" in tags
        else "one frame"
        if "one-frame" in tags
        else "several frames"
    )
    order = "order-dependent" if "order-dependent" in tags else "order-free"
    return [frames, order]


def official_tags(question: Question) -> list[str]:
    """The reasoning type's tags as EgoTaskQA's split files hold them, repeats kept."""
    return reasoning_tags(vars(question))


def _axis(field: str) -> Callable[[Question], list[str]]:
    """The labeller of one tag axis: the question's tags on it (its ``field``)."""
    return lambda q: _field_tags(field, getattr(q, field))


# The breakdowns evaluation scores a split by, in report order: name, caption, and the groups a
# question belongs to (a multi-label breakdown gives a question several).
Labeller = Callable[["Question"], Iterable[str]]
BREAKDOWNS: tuple[tuple[str, str, Labeller], ...] = (
    ("overall", "All questions", lambda q: ["all"]),
    (
        "open_binary_structural",
        "Open/Binary by structure (open = query, binary = verify)",
        lambda q: ["all", *STRUCTURAL_KIND.get(q.structural, ())],
    ),
    (
        "open_binary_answer",
        "Open/Binary by answer (binary = the answer is yes or no)",
        lambda q: ["all", answer_kind(q.answer)],
    ),
    ("official_tags", "Per tag, EgoTaskQA's official counting", official_tags),
    ("type", "Reasoning type", _axis("types")),
    ("scope", "Scope", _axis("scopes")),
    ("semantic", "Semantic", _axis("semantic")),
    ("structural", "Structural", _axis("structural")),
    ("reference", "Reference", _axis("reference")),
    ("obfuscation", "Objects hidden (obfuscation level)", lambda q: [str(q.obfuscation)]),
    ("template", "Template", lambda q: [q.template]),
    (
        "evidence",
        "What the answer needs of the clip (vision-ablation audit, docs/evidence.md)",
        evidence_groups,
    ),
)
