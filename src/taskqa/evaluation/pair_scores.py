"""Pair accuracy: both questions of a minimal pair right (docs/minimal-pairs.md).

A minimal pair asks one text of two clips that differ in one fact, with different answers, so a
model that does not watch cannot get both right. ``taskqa evaluate --split pairs/test`` reports,
per model, the share of pairs with both questions right beside the usual per-question scores,
overall and per intervention kind, reasoning type and semantic category.
"""

from __future__ import annotations

import io
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from taskqa.benchmark.folder import PAIR_FAMILY, Benchmark, pair_accuracy
from taskqa.evaluation.predictions import CORRECT
from taskqa.evaluation.table import QuestionTable
from taskqa.questions.records import Question


def pair_scores(
    pairs: Sequence[Mapping[str, Any]],
    table: QuestionTable,
    outcomes: NDArray[np.int8],
    questions: Mapping[str, Question],
    scored: NDArray[np.bool_] | None = None,
) -> dict[str, Any]:
    """Pairs of the split (both questions in ``table``), and the share with both right
    (``pair_accuracy``), overall and per group; with ``scored`` (a file scored on the questions
    it answers), only the pairs both of whose questions it answers."""
    correct = outcomes == CORRECT
    right: dict[str, bool] = {}  # the pairs' questions the file is scored on: right or not
    groups: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for pair in pairs:
        a, b = table.index.get(str(pair["a"])), table.index.get(str(pair["b"]))
        if a is None or b is None:
            continue
        if scored is not None and not (scored[a] and scored[b]):
            continue
        right[str(pair["a"])], right[str(pair["b"])] = bool(correct[a]), bool(correct[b])
        question = questions[str(pair["a"])]
        for key in (
            "all",
            f"intervention:{pair['intervention']['kind']}",
            *(f"type:{kind}" for kind in question.types),
            f"semantic:{question.semantic}",
        ):
            groups[key].append(pair)
    return {
        key: pair_accuracy(found, right)
        for key, found in sorted(groups.items(), key=lambda item: (item[0] != "all", item[0]))
    }


STRIP_FRAMES = 4
STRIP_SIZE = 128


def pair_strip(bench: Benchmark, pair: Mapping[str, Any]) -> bytes | None:
    """A PNG of a pair's two clips side by side: the asking person's view at evenly spaced
    moments around the intervention, the first recording above the second, each row labelled
    with its answer. Drawn with TinyRenderer, so the picture is the same on every machine;
    None when the pair's recordings cannot be drawn (not simulated household recordings)."""
    from PIL import Image, ImageDraw

    from taskqa.convert import read_recordings
    from taskqa.household.corpus_videos import domain_to_draw
    from taskqa.household.frames import render_frames
    from taskqa.household.look_spec import load_look
    from taskqa.household.options import RenderOptions

    recordings = {r.id: r for r in read_recordings(bench.corpus_dir)[0]}
    clips = bench.clips()
    questions = {}
    for family_split in ("test", "val", "train"):
        for q in bench.questions(PAIR_FAMILY, family_split):
            questions[q.id] = q.question
    rows = []
    domain = domain_to_draw(bench.corpus_dir, list(recordings.values()))
    fps = 2.0
    options = RenderOptions(
        fps=fps, width=STRIP_SIZE, height=STRIP_SIZE, views=("first",), backend="tiny"
    )
    for side in ("a", "b"):
        question = questions.get(str(pair[side]))
        recording = recordings.get(str(pair[f"recording_{side}"]))
        clip = clips.get(question.clip) if question is not None else None
        if question is None or recording is None or clip is None:
            return None
        moments = np.linspace(*_around(pair, recording.fps, clip.start, clip.end), STRIP_FRAMES)
        indices = [int(round(t * fps)) for t in moments]
        try:
            frames = render_frames(recording, domain, load_look(), indices, options)
        except (KeyError, ValueError):
            return None
        view = f"{question.agent}-first"
        if view not in frames:
            return None
        strip = Image.fromarray(np.concatenate(frames[view], axis=1))
        labelled = Image.new("RGB", (strip.width, strip.height + 18), "white")
        labelled.paste(strip, (0, 18))
        ImageDraw.Draw(labelled).text((4, 3), f"{side.upper()}: {question.answer}", fill="black")
        rows.append(labelled)
    picture = Image.new("RGB", (rows[0].width, sum(r.height for r in rows)), "white")
    top = 0
    for row in rows:
        picture.paste(row, (0, top))
        top += row.height
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()


def _around(pair: Mapping[str, Any], fps: float, start: float, end: float) -> tuple[float, float]:
    """The stretch of the clip the strip shows: from just before the changed action to a few
    seconds after it, where the two clips differ (the whole clip for a changed start state)."""
    frame = pair["intervention"].get("frame")
    if frame is None:
        return start, end
    moment = int(frame) / fps
    return max(start, moment - 0.5), max(min(end, moment + 4.5), max(start, moment - 0.5))
