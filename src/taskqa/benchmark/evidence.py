"""Vision-ablation audit: what part of the clip a question's answer really needs (docs/evidence.md).

No model is needed: the question's program is run again on reduced evidence, and the answer it
gives there is compared with the stored one. The clip's evidence is its observed actions, each
with the states it saw before and after (the view every program runs on); reduced, it is

- **one frame**: a single action seen in the clip (the person's first, last, or any one, or
  one of the other person's);
- **no frame**: none of them, the world and its future alone;
- **shuffled**: all of them with the clip's time reversed, so that the order is lost.

Evidence *determines* an answer when the program gives the stored answer on it while it gives
another (or none) with no action seen at all; a yes/no answer only where seeing nothing gives
the other answer: "did they open the fridge after washing the cup? no" holds on the frame of the
washing alone, but no frame shows that nobody opened it. A question answered the
same with no frame at all is tagged ``no-frame``: its answer comes from the text and the world
(or the part of the recording the clip does not show), not from the video.

Tags per question (``Question.evidence``): ``no-frame``; ``one-frame`` (plus ``first-frame``
and/or ``last-frame`` when that frame is one that suffices) or ``several-frames``; and
``order-free`` or ``order-dependent`` (the answer changes, or is lost, when time runs back).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from taskqa.benchmark.balance import rank
from taskqa.programs.clips import ClipRecord
from taskqa.programs.records import ClipView, Interval
from taskqa.questions.tags import BINARY_ANSWERS
from taskqa.questions.world import Asked, CorpusWorld

NO_FRAME, ONE_FRAME, SEVERAL = "no-frame", "one-frame", "several-frames"
FIRST, LAST = "first-frame", "last-frame"
ORDER_FREE, ORDER_DEPENDENT = "order-free", "order-dependent"
EVIDENCE_TAGS = (NO_FRAME, ONE_FRAME, FIRST, LAST, SEVERAL, ORDER_FREE, ORDER_DEPENDENT)


def with_observed(
    view: ClipView, observed: tuple[Interval, ...], others: tuple[Interval, ...] = ()
) -> ClipView:
    """The view with only ``observed`` (the person's) and ``others`` (the other person's)
    actions seen; nested answers are worked out again."""
    by_id = {i.id: i for i in (*observed, *view.future, *others)}
    return replace(view, observed=observed, others=others, by_id=by_id, nested={})


def time_reversed(view: ClipView) -> ClipView:
    """The view with the clip's actions (both people's) in reverse: each keeps its length and
    what it changed, but what came first comes last."""
    seen = (*view.observed, *view.others)
    if not seen:
        return view
    begin = min(i.start for i in seen)
    finish = max(i.end for i in seen)

    def turned(intervals: tuple[Interval, ...]) -> tuple[Interval, ...]:
        return tuple(
            replace(i, start=begin + finish - i.end, end=begin + finish - i.start)
            for i in reversed(intervals)
        )

    return with_observed(view, turned(view.observed), turned(view.others))


def evidence_tags(ask: Callable[[ClipView], str | None], view: ClipView) -> list[str]:
    """The audit's tags of one question whose answer on ``view`` is ``ask(view)``."""
    stored = ask(view)
    if stored is None:
        return []
    blind = ask(with_observed(view, ()))
    tags: list[str] = []
    if blind == stored:
        tags.append(NO_FRAME)
    else:
        enough = _single_frames(ask, view, stored, blind)
        if enough:
            tags.append(ONE_FRAME)
            if 0 in enough:
                tags.append(FIRST)
            if len(view.observed) - 1 in enough:
                tags.append(LAST)
        else:
            tags.append(SEVERAL)
    tags.append(ORDER_FREE if ask(time_reversed(view)) == stored else ORDER_DEPENDENT)
    return tags


def _single_frames(
    ask: Callable[[ClipView], str | None], view: ClipView, stored: str, blind: str | None
) -> set[int]:
    """Which actions alone give the stored answer (observed by position; the other person's
    after them). A yes/no answer counts only where some other evidence (nothing, or another
    single action) gives the other answer: a "no" that every frame gives because it lacks the
    action asked about is a "no" no single frame can show (nobody did it at any moment)."""
    answers: dict[int, str | None] = {}
    for index, seen in enumerate(view.observed):
        answers[index] = ask(with_observed(view, (seen,)))
    for index, seen in enumerate(view.others, start=len(view.observed)):
        answers[index] = ask(with_observed(view, (), (seen,)))
    enough = {index for index, found in answers.items() if found == stored}
    if stored in BINARY_ANSWERS:
        contrary = [a for a in (blind, *answers.values()) if a is not None and a != stored]
        if not contrary:
            return set()
    return enough


def _audit_records(
    records: Sequence[dict[str, Any]],
    world: CorpusWorld,
    clips: Mapping[str, ClipRecord],
    clips_file: str,
) -> dict[str, list[str]]:
    """The evidence tags of every question record (by id), run recording by recording."""
    tags: dict[str, list[str]] = {}
    for asked in world.ask(records, clips, clips_file):
        if isinstance(asked, Asked):
            tags[str(asked.item["id"])] = evidence_tags(asked.answer, asked.view)
    return tags


def tag_records(
    records: Sequence[dict[str, Any]],
    world: CorpusWorld,
    clips: Mapping[str, ClipRecord],
    clips_file: str,
) -> None:
    """Set every record's ``evidence`` to its tags (empty where it could not be audited)."""
    tags = _audit_records(records, world, clips, clips_file)
    for record in records:
        record["evidence"] = tags.get(str(record["id"]), [])


def answerable_from_one_frame(tags: Iterable[str]) -> bool:
    """One frame (or none at all) gives the answer: what ``--max-single-frame`` caps."""
    return bool({ONE_FRAME, NO_FRAME}.intersection(tags))


def cap_single_frame(
    records: Mapping[int, Mapping[str, Any]],
    partners: Mapping[int, int],
    share: float,
    seed: int,
) -> set[int]:
    """The rows to drop so that, in every template, at most ``share`` of the questions are
    answerable from one frame; the seeded last of them go first, with their yes/no partner."""
    by_template: dict[str, list[int]] = defaultdict(list)
    for row, record in records.items():
        by_template[str(record["template"])].append(row)
    dropped: set[int] = set()
    for rows in by_template.values():
        flagged = [r for r in rows if answerable_from_one_frame(records[r].get("evidence") or ())]
        flagged.sort(key=lambda r: rank(seed, f"single-frame:{records[r]['id']}"))
        kept, flagged_kept = set(rows), set(flagged)
        # the share is of what stays, so drop until it holds (a dropped pair takes both)
        while flagged and len(flagged_kept) > share * len(kept):
            row = flagged.pop()
            if row not in kept:
                continue  # already gone as a partner
            for gone in (row, partners.get(row)):
                if gone is not None:  # a partner goes too, whatever its template
                    kept.discard(gone)
                    flagged_kept.discard(gone)
                    dropped.add(gone)
    return dropped


def per_template(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """Per template (and ``all``): how many questions, and the share carrying each tag."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for record in records:
        for key in ("all", str(record["template"])):
            counts[key]["questions"] += 1
            for tag in record.get("evidence") or ():
                counts[key][tag] += 1
    return {
        key: {
            "questions": found["questions"],
            **{tag: round(found[tag] / found["questions"], 4) for tag in EVIDENCE_TAGS},
        }
        for key, found in sorted(counts.items(), key=lambda item: (item[0] != "all", item[0]))
    }
