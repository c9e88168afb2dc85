"""Task descriptions: several positive phrasings per task, abstraction variants, and negatives.

A description is rendered from *blocks* of phrases (sub-task, receptacle): consecutive blocks are
ordered, phrases inside a block are not. Its gold graph comes from the same blocks, so every
generated description has a known graph (and the parser must recover it; a test checks that).

EgoTV wrote its negatives by hand, per task. Here they are made by program from the positive's
blocks and then *checked against the episode*: a candidate that the episode's segment-level
ground truth satisfies is rejected, so no negative is accidentally true of its video.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from taskqa.verify.graph import ANY_RECEPTACLE, QueryGraph, SubTask
from taskqa.verify.kitchen import AFFORDANCES, PLACE_RECEPTACLES, Episode, Segment
from taskqa.verify.parser import Phrase, graph_from_phrases
from taskqa.verify.tasks import Task

Blocks = list[list[Phrase]]

_PARTICIPLE = {
    SubTask.CLEAN: ("cleaned in a SinkBasin", "cleaned"),
    SubTask.HEAT: ("heated", "heated"),
    SubTask.COOL: ("cooled in a Fridge", "cooled"),
    SubTask.SLICE: ("sliced", "sliced"),
    SubTask.PICK: ("picked", "picked"),
}
_GERUND = {
    SubTask.CLEAN: ("cleaning in a SinkBasin", "cleaning"),
    SubTask.HEAT: ("heating", "heating"),
    SubTask.COOL: ("cooling in a Fridge", "cooling"),
    SubTask.SLICE: ("slicing", "slicing"),
    SubTask.PICK: ("picking", "picking"),
}
_ADJECTIVE = {
    SubTask.CLEAN: "clean",
    SubTask.HEAT: "hot",
    SubTask.COOL: "cold",
    SubTask.SLICE: "sliced",
}


@dataclass(frozen=True)
class Description:
    text: str
    graph: QueryGraph


def task_blocks(task: Task, receptacle: str | None) -> Blocks:
    return [
        [(s, receptacle if s is SubTask.PLACE else None) for s in block] for block in task.blocks
    ]


def _phrase(phrase: Phrase, forms: dict[SubTask, tuple[str, str]], abstract: bool) -> str:
    subtask, receptacle = phrase
    if subtask is SubTask.PLACE:
        verb = "placed" if forms is _PARTICIPLE else "placing"
        return verb if receptacle in (None, ANY_RECEPTACLE) else f"{verb} in a {receptacle}"
    return forms[subtask][1 if abstract else 0]


def _join(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _styles(blocks: Blocks) -> list[str]:
    """The phrasings that fit the block structure."""
    if len(blocks) == 1:
        goal_ok = all(s is not SubTask.PICK for s, _ in blocks[0])
        return ["and", "picked_and"] + (["goal"] if goal_ok else [])
    return ["then", "picked_then"] + (["before", "after"] if len(blocks) == 2 else [])


def render(obj: str, blocks: Blocks, rng: random.Random, abstract: bool = False) -> Description:
    """One phrasing of the blocks, chosen at random among those that fit."""
    if abstract:
        blocks = [[(s, ANY_RECEPTACLE if s is SubTask.PLACE else r) for s, r in b] for b in blocks]
    shuffled = [rng.sample(block, len(block)) for block in blocks]
    styles = _styles(blocks)
    if abstract and "goal" in styles:
        styles = ["goal", "goal", *styles]  # goal-oriented text is the abstraction's hallmark
    style = rng.choice(styles)
    if style == "goal":
        shuffled[0].sort(key=lambda phrase: phrase[0] is SubTask.PLACE)  # "placed in" comes last
    text = _RENDERERS[style](obj, shuffled, abstract)
    # Numbered from the mentioned order: it decides the steps when no task has these blocks.
    return Description(text, graph_from_phrases(obj, shuffled))


def _and(obj: str, blocks: Blocks, abstract: bool) -> str:
    return f"{obj} is " + _join([_phrase(p, _PARTICIPLE, abstract) for p in blocks[0]])


def _picked_and(obj: str, blocks: Blocks, abstract: bool) -> str:
    if blocks[0][0][0] is SubTask.PICK:
        return _and(obj, blocks, abstract)
    phrases = [_phrase(p, _PARTICIPLE, abstract) for p in blocks[0]]
    return (
        f"{obj} is picked and {phrases[0]}"
        if len(phrases) == 1
        else (f"{obj} is picked, " + _join(phrases))
    )


def _goal(obj: str, blocks: Blocks, abstract: bool) -> str:
    states = [_ADJECTIVE[s] for s, _ in blocks[0] if s is not SubTask.PLACE]
    places = [r for s, r in blocks[0] if s is SubTask.PLACE]
    if not states:
        return _and(obj, blocks, abstract)
    text = f"a {', '.join(states)} {obj}"
    if places:
        text += " placed" if places[0] in (None, ANY_RECEPTACLE) else f" placed in a {places[0]}"
    return text


def _then(obj: str, blocks: Blocks, abstract: bool) -> str:
    parts = [_join([_phrase(p, _PARTICIPLE, abstract) for p in block]) for block in blocks]
    return f"{obj} is " + ", then ".join(parts)


def _picked_then(obj: str, blocks: Blocks, abstract: bool) -> str:
    return _then(obj, blocks, abstract).replace(" is ", " is picked, then ", 1)


def _before(obj: str, blocks: Blocks, abstract: bool) -> str:
    first = _join([_phrase(p, _PARTICIPLE, abstract) for p in blocks[0]])
    return f"{obj} is {first} before " + _join([_phrase(p, _GERUND, abstract) for p in blocks[1]])


def _after(obj: str, blocks: Blocks, abstract: bool) -> str:
    last = _join([_phrase(p, _PARTICIPLE, abstract) for p in blocks[1]])
    return f"{obj} is {last} after " + _join([_phrase(p, _GERUND, abstract) for p in blocks[0]])


_RENDERERS: dict[str, Callable[[str, Blocks, bool], str]] = {
    "and": _and, "picked_and": _picked_and, "goal": _goal, "then": _then,
    "picked_then": _picked_then, "before": _before, "after": _after,
}  # fmt: skip


# --- checking a graph against an episode's ground truth ---------------------------------------


def query_matches(segment: Segment, subtask: SubTask, obj: str, receptacle: str | None) -> bool:
    if segment.subtask is not subtask or segment.obj != obj:
        return False
    return subtask is not SubTask.PLACE or receptacle in (ANY_RECEPTACLE, segment.receptacle)


def satisfied(graph: QueryGraph, segments: Sequence[Segment]) -> bool:
    """Whether some alignment consistent with the graph matches every query to a segment that
    carries it out (a bipartite check through the exact aligner on 0/1 scores)."""
    from taskqa.verify.align import best_alignment

    if len(graph.queries) > len(segments):
        return False
    logits = [
        [10.0 if query_matches(seg, q.subtask, q.obj, q.receptacle) else -10.0 for seg in segments]
        for q in graph.queries
    ]
    result = best_alignment(logits, graph.edges)
    return all(logits[q][s] > 0 for q, s in enumerate(result.segments))


# --- negatives ---------------------------------------------------------------------------------

DESCRIPTION_NEGATIVES = (
    "order_swap", "impossible_order", "substitution", "extra_subtask", "wrong_receptacle",
)  # fmt: skip
VIDEO_NEGATIVES = ("shuffled_video", "dropped_segment")
_STATE_SUBTASKS = (SubTask.CLEAN, SubTask.HEAT, SubTask.COOL, SubTask.SLICE)


def negative_blocks(
    kind: str, blocks: Blocks, episode: Episode, rng: random.Random
) -> Blocks | None:
    """A candidate negative of the given kind, or None when the kind does not apply."""
    subtasks = [s for block in blocks for s, _ in block]
    spare = [
        s
        for s in (*_STATE_SUBTASKS, SubTask.PLACE)
        if s not in subtasks and s in AFFORDANCES[episode.obj]
    ]
    if kind == "order_swap":
        return _order_swap(blocks, episode, rng)
    if kind == "impossible_order":
        return [list(b) for b in reversed(blocks)] if len(blocks) > 1 else None
    if kind == "substitution" and spare and subtasks != [SubTask.PICK]:
        position = rng.randrange(len(subtasks))
        return _replace_at(blocks, position, _new_phrase(rng.choice(spare), episode, rng))
    if kind == "extra_subtask" and spare:
        grown = [list(b) for b in blocks]
        if rng.random() < 0.5:
            grown[rng.randrange(len(grown))].append(_new_phrase(rng.choice(spare), episode, rng))
        else:
            grown.insert(
                rng.randrange(len(grown) + 1), [_new_phrase(rng.choice(spare), episode, rng)]
            )
        return grown
    if kind == "wrong_receptacle" and SubTask.PLACE in subtasks:
        position = subtasks.index(SubTask.PLACE)
        actual = episode.receptacle
        others = [r for r in PLACE_RECEPTACLES if r != actual]
        return _replace_at(blocks, position, (SubTask.PLACE, rng.choice(others)))
    return None


def _new_phrase(subtask: SubTask, episode: Episode, rng: random.Random) -> Phrase:
    return (subtask, rng.choice(PLACE_RECEPTACLES) if subtask is SubTask.PLACE else None)


def _replace_at(blocks: Blocks, position: int, phrase: Phrase) -> Blocks:
    result: Blocks = []
    index = 0
    for block in blocks:
        result.append([])
        for old in block:
            result[-1].append(phrase if index == position else old)
            index += 1
    return result


def _order_swap(blocks: Blocks, episode: Episode, rng: random.Random) -> Blocks | None:
    if len(blocks) > 1:
        first, second = sorted(rng.sample(range(len(blocks)), 2))
        a, b = rng.randrange(len(blocks[first])), rng.randrange(len(blocks[second]))
        swapped = [list(block) for block in blocks]
        swapped[first][a], swapped[second][b] = blocks[second][b], blocks[first][a]
        return swapped
    phrases = {s: (s, r) for s, r in blocks[0]}
    executed = [s for s in episode.order if s in phrases]
    if len(executed) < 2:
        return None
    early, late = sorted(rng.sample(range(len(executed)), 2))
    rest = [phrases[s] for i, s in enumerate(executed) if i not in (early, late)]
    return [[phrases[executed[late]]], [phrases[executed[early]], *rest]]


def negative_video(kind: str, episode: Episode, rng: random.Random) -> list[int] | None:
    """Indices of the episode's segments to show, shuffled or with one sub-task dropped."""
    runs = _runs(episode.segments)
    if kind == "shuffled_video":
        order = rng.sample(range(len(runs)), len(runs))
        return [i for run in order for i in runs[run]]
    candidates = [
        i
        for i, run in enumerate(runs)
        if episode.segments[run[0]].subtask in _STATE_SUBTASKS
        or episode.segments[run[0]].subtask is SubTask.PLACE
    ]
    if not candidates:
        return None
    dropped = rng.choice(candidates)
    return [i for index, run in enumerate(runs) if index != dropped for i in run]


def _runs(segments: Sequence[Segment]) -> list[list[int]]:
    """Consecutive segments of one action form a run (a long action spans several windows)."""
    runs: list[list[int]] = []
    for segment in segments:
        if runs and segments[runs[-1][-1]].action == segment.action:
            runs[-1].append(segment.index)
        else:
            runs.append([segment.index])
    return runs
