"""Rule-based parser: an EgoTV task description -> partial-order graph of queries.

Two sentence shapes cover EgoTV's templates and ours:

* task-oriented, ``OBJ [is] CLAUSE``. The clause is split on ``before``/``after`` (which order
  the two sides), then on ``then`` (sequential blocks), then on ``,``/``and`` (an unordered
  block). Each piece is one verb phrase: ``cleaned in a SinkBasin``, ``heating``,
  ``placed in a countertop``, ``located and picked`` ...
* goal-oriented, ``[a] ADJ, ADJ OBJ [placed] [in a RECEP]`` (``a hot, clean apple``) or
  ``a slice of OBJ``: one unordered block.

``picked`` next to other sub-tasks is dropped: EgoTV's graphs keep a pick query only for the
``pick_simple`` task. When the blocks match one of the 82 tasks, the sub-tasks inside a block are
numbered in the task name's order, as EgoTV's graph generator does; otherwise in mention order.
"""

from __future__ import annotations

import re

from taskqa.verify.graph import ANY_RECEPTACLE, Query, QueryGraph, SubTask
from taskqa.verify.tasks import task_for_blocks

_VERBS: dict[str, SubTask] = {}
for _subtask, _words in {
    SubTask.CLEAN: "clean cleaned cleaning washed washing rinsed rinsing",
    SubTask.HEAT: "hot heated heating warmed warming cooked cooking",
    SubTask.COOL: "cold cool cooled cooling chilled chilling",
    SubTask.SLICE: "sliced slicing cut cutting",
    SubTask.PLACE: "placed placing put putting",
    SubTask.PICK: "picked picking",
}.items():
    _VERBS.update(dict.fromkeys(_words.split(), _subtask))

_ARTICLE = r"(?:(?:a|an|the)\s+)?"
_PHRASE = re.compile(
    rf"^(?:(?:then|also)\s+)?(?P<verb>\w+)(?:\s+(?:in|on|into|onto|inside|using|with)\s+"
    rf"{_ARTICLE}(?P<place>\w+))?$"
)
_THEN = re.compile(r"\s*,?\s*(?:and\s+)?\bthen\s+")
_AND = re.compile(r"\s*,\s*and\s+|\s*,\s*|\s+and\s+")
_GOAL = re.compile(
    rf"^(?:a|an)?\s*(?P<adjectives>(?:\w+\s*,?\s*(?:and\s+)?)*?)(?P<obj>\w+)"
    rf"(?P<placed>\s+placed)?(?:\s+(?:in|on|into)\s+{_ARTICLE}(?P<recep>\w+))?$"
)
_SLICE_OF = re.compile(
    rf"^(?:a|an)\s+slice\s+of\s+(?P<obj>\w+)(?:\s+(?:placed\s+)?(?:in|on|into)\s+"
    rf"{_ARTICLE}(?P<recep>\w+))?$"
)

Phrase = tuple[SubTask, str | None]  # a sub-task and, for place, its receptacle


class DescriptionError(ValueError):
    """A description the grammar does not cover."""


def parse_description(description: str) -> QueryGraph:
    text = " ".join(description.strip().rstrip(".").lower().split())
    if not text:
        raise DescriptionError("empty description")
    parsed = _parse_goal(text) or _parse_task(text)
    if parsed is None:
        raise DescriptionError(f"cannot read {description!r} as '<object> is <sub-tasks>'")
    obj, blocks = parsed
    return graph_from_phrases(obj, blocks)


def graph_from_phrases(obj: str, blocks: list[list[Phrase]]) -> QueryGraph:
    """The graph for ordered blocks of (sub-task, receptacle), numbered as EgoTV numbers it."""
    return _to_graph(obj, _canonical_order(_drop_auxiliary_picks(blocks)))


def _parse_goal(text: str) -> tuple[str, list[list[Phrase]]] | None:
    sliced = _SLICE_OF.match(text)
    if sliced:
        block: list[Phrase] = [(SubTask.SLICE, None)]
        if sliced.group("recep"):
            block.append((SubTask.PLACE, sliced.group("recep")))
        return sliced.group("obj"), [block]
    match = _GOAL.match(text)
    if match is None or not match.group("adjectives").strip():
        return None
    words = [w for w in re.split(r"[,\s]+", match.group("adjectives")) if w and w != "and"]
    if not all(w in _VERBS for w in words):
        return None
    block = [(_VERBS[w], None) for w in words]
    if match.group("recep") or match.group("placed"):
        block.append((SubTask.PLACE, match.group("recep") or ANY_RECEPTACLE))
    return match.group("obj"), [block]


def _parse_task(text: str) -> tuple[str, list[list[Phrase]]] | None:
    head = re.match(r"^(?P<obj>\w+)\s+(?:is\s+|gets\s+|was\s+)?(?P<clause>.+)$", text)
    if head is None:
        return None
    clause = head.group("clause").replace("located and picked", "picked")
    try:
        return head.group("obj"), _parse_ordered(clause)
    except DescriptionError:
        return None


def _parse_ordered(clause: str) -> list[list[Phrase]]:
    after = re.split(r"\s+after\s+", clause, maxsplit=1)
    if len(after) == 2:
        return _parse_ordered(after[1]) + _parse_ordered(after[0])
    before = re.split(r"\s+before\s+", clause, maxsplit=1)
    if len(before) == 2:
        return _parse_ordered(before[0]) + _parse_ordered(before[1])
    return [_parse_block(part) for part in _THEN.split(clause) if part.strip()]


def _parse_block(text: str) -> list[Phrase]:
    return [_parse_phrase(piece) for piece in _AND.split(text.strip(" ,")) if piece.strip()]


def _parse_phrase(text: str) -> Phrase:
    match = _PHRASE.match(text.strip())
    if match is None or match.group("verb") not in _VERBS:
        raise DescriptionError(f"unknown verb phrase {text!r}")
    subtask = _VERBS[match.group("verb")]
    if subtask is SubTask.PLACE:
        return subtask, match.group("place") or ANY_RECEPTACLE
    return subtask, None


def _drop_auxiliary_picks(blocks: list[list[Phrase]]) -> list[list[Phrase]]:
    if all(subtask is SubTask.PICK for block in blocks for subtask, _ in block):
        return [blocks[0][:1]]
    kept = [[p for p in block if p[0] is not SubTask.PICK] for block in blocks]
    return [block for block in kept if block]


def _canonical_order(blocks: list[list[Phrase]]) -> list[list[Phrase]]:
    task = task_for_blocks(tuple(tuple(s for s, _ in block) for block in blocks))
    if task is None:
        return blocks
    ordered = []
    for block, names in zip(blocks, task.blocks, strict=True):
        by_subtask = {subtask: phrase for phrase in block for subtask in [phrase[0]]}
        ordered.append([by_subtask[subtask] for subtask in names])
    return ordered


def _to_graph(obj: str, blocks: list[list[Phrase]]) -> QueryGraph:
    seen: set[SubTask] = set()
    for block in blocks:
        for subtask, _ in block:
            if subtask in seen:
                raise DescriptionError(f"sub-task {subtask} is asked for twice")
            seen.add(subtask)
    return QueryGraph.from_blocks(
        [[Query(subtask, obj, recep) for subtask, recep in block] for block in blocks]
    )
