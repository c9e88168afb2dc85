"""Review generated questions by watching: a sample with a frame sheet each, then the verdicts.

    python benchmarks/review_questions.py sample BENCH --n 200 --seed 0 --out REVIEW/review.jsonl
    python benchmarks/review_questions.py summary REVIEW/review.jsonl
    python benchmarks/review_questions.py viewer BENCH --recordings 8 --per-recording 10 \
        --seed 11 --out STUDY/viewer.jsonl
    python benchmarks/review_questions.py viewer-score STUDY/viewer.jsonl

`sample` draws questions uniformly (seeded) from the normal test split (`--splits` for others)
of a built benchmark and
writes one line per question with empty `verdict`, `labels`, `needs_video` and `note` fields,
plus what a reviewer needs beside the text: the answer, the template, the clip's actions in order
and its next (unseen) actions, and a **frame sheet** (`frames`: a PNG beside the JSONL file, in
`frames/<question id>.png`). The sheet shows frames evenly spaced over the clip's shown span in
two rows, the asked person's first-person view and the room's third-person camera, each frame
with its time, under the question and its stored answer, above the actions with their times.

Frames are decoded from the benchmark's videos (`videos.csv`, its corpus copy) where they exist;
a clip without a video file is rendered frame by frame from its simulated recording (only the
frames the sheet shows; nothing is written into the benchmark folder). `--no-render` refuses that
and stops instead. `summary` counts the filled-in verdicts by the rubric of
docs/question-quality.md, prints each against the targets (`AT_MOST`, `AT_LEAST`), and exits
with status 1 when a line is not filled in or uses a label outside the rubric. `viewer` writes
a blind viewer study (question, options and frames only; the key beside it) and
`viewer-score` scores it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import textwrap
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont
from PIL.PngImagePlugin import PngInfo

from taskqa.benchmark.clip_videos import frame_span
from taskqa.benchmark.folder import Benchmark, VideoClip
from taskqa.corpus import read_corpus
from taskqa.model import ActionSegment, Recording, Source, View
from taskqa.programs.clips import Clip

# The rubric's verdicts, most serious first: a question gets the first that applies as its
# verdict, and every one that applies as its labels.
PROBLEMS = (
    "wrong-answer",
    "ill-posed",
    "not-answerable",
    "gives-answer-away",
    "vague",
    "ungrammatical",
    "ok",
)
OK = "ok"
NEEDS_VIDEO = ("yes", "no")
# The most share of the questions carrying a label, the least for ok: the targets of the issue
# "Questions a viewer answers" (issue 22's were 1, 2, 3, 5 and 90).
AT_MOST = {"wrong-answer": 0.5, "ill-posed": 1.0, "not-answerable": 2.0, "ungrammatical": 3.0}
AT_LEAST = {OK: 92.0}

FRAMES = 10  # per view on a sheet
FPS = 2.0  # the frame grid of rendered frames when the benchmark has no video (taskqa render's)
SIZE = 224  # rendered frames' side when the benchmark has no video
FRAMES_DIR = "frames"
LETTERS = "ABCDEFGH"
VIEWER_FRAMES = 24  # per view on a viewer-study sheet, as the earlier study
VIEWER_ROW = 8  # frames per row on a viewer-study sheet
SHEET_KEY = "taskqa-frames"  # PNG text chunk: the sheet's views, times and frame boxes

Frame = npt.NDArray[np.uint8]


def _rank(seed: int, identifier: str) -> int:
    return int.from_bytes(hashlib.blake2b(f"{seed}:{identifier}".encode(), digest_size=8).digest())


def draw(
    bench: Path, count: int, seed: int, splits: Sequence[str] = ("test",)
) -> list[dict[str, Any]]:
    """``count`` questions of the normal ``splits`` (the test split, as issue 22's review asks),
    drawn uniformly by a seeded hash of their ids."""
    questions: list[dict[str, Any]] = []
    for split in splits:
        with (bench / "splits" / "normal" / f"{split}.jsonl").open(encoding="utf-8") as stream:
            questions.extend(json.loads(line) for line in stream)
    return sorted(questions, key=lambda q: _rank(seed, q["id"]))[:count]


def _recordings(bench: Path) -> dict[str, Recording]:
    return {recording.id: recording for recording in read_corpus(bench / "corpus")}


@dataclass(frozen=True)
class Shown:
    """One action on a sheet: its span in the recording, and its line."""

    start: float
    end: float
    agent: str
    text: str


def _shown(recording: Recording, clip: Clip) -> tuple[list[Shown], list[Shown]]:
    """What the clip shows, exactly as the generator cut it (the benchmark's clips.jsonl): the
    person's actions and the other person's overlapping ones, in time order; then the person's
    next actions, which the clip does not show."""
    actions = {action.id: action for action in recording.actions}
    shown = sorted((*clip.observed, *clip.others), key=lambda i: (actions[i].start, actions[i].end))
    return [_entry(actions[i]) for i in shown], [_entry(actions[i]) for i in clip.future]


def _entry(action: ActionSegment) -> Shown:
    return Shown(action.start, action.end, action.agent, _line(action, ""))


def _clip_lines(recording: Recording, clip: Clip) -> list[str]:
    """The clip's actions for the JSONL line, the unseen next ones marked ``[unseen]``."""
    seen, unseen = _shown(recording, clip)
    return [s.text for s in seen] + [f"[unseen] {s.text}" for s in unseen]


def _line(action: ActionSegment, mark: str) -> str:
    outcome = "" if action.outcome == "done" else f" ({action.outcome})"
    return f"{mark}{action.agent}: {action.verb} {' '.join(action.slots.objects())}{outcome}"


# --- the frames of a clip ------------------------------------------------------------------------
@dataclass
class ClipFrames:
    """The frames a sheet shows: their times, and per row (view) its label and frames (None where
    the view has no video and cannot be rendered)."""

    times: list[float]
    rows: list[tuple[str, list[Frame | None]]]
    rendered: bool  # some view was rendered here rather than decoded from a video


def pick(span: range, count: int) -> list[int]:
    """``count`` frame indices evenly spaced over ``span``, its first and last included (all of
    them when the span is shorter)."""
    if len(span) <= count:
        return list(span)
    last = len(span) - 1
    return [span[round(k * last / (count - 1))] for k in range(count)]


class FrameSource:
    """Frames of the benchmark's clips: decoded from its videos, else rendered from the corpus."""

    def __init__(self, bench: Path, count: int, fps: float, size: int, render: bool) -> None:
        self.bench = bench
        self.count = count
        self.fps = fps
        self.size = size
        self.render = render
        self.rows: dict[str, list[VideoClip]] = defaultdict(list)
        for row in Benchmark(bench).videos().rows:
            self.rows[row.clip].append(row)
        self._scene: tuple[Any, Any] | None = None

    def video(self, clip: Clip, view: View) -> Path | None:
        """The clip's video file of ``view`` (the asked person's, for the first-person view)."""
        for row in self.rows.get(clip.id, []):
            if row.view != view.value or not row.video.is_file():
                continue
            if view == View.FIRST_PERSON and row.agent != clip.agent:
                continue
            return row.video
        return None

    def missing(self, clip: Clip) -> list[View]:
        return [v for v in (View.FIRST_PERSON, View.THIRD_PERSON) if self.video(clip, v) is None]

    def frames(self, recording: Recording, clip: Clip) -> ClipFrames:
        from taskqa.household.frames import frame_count
        from taskqa.render.video import read_frames, video_info

        videos = {v: self.video(clip, v) for v in (View.FIRST_PERSON, View.THIRD_PERSON)}
        found = [path for path in videos.values() if path is not None]
        if found:  # the grid and size of the benchmark's own video
            total, fps, _ = video_info(found[0])
        else:
            fps = self.fps
            total = frame_count(recording.duration, fps)
        indices = pick(frame_span(clip.start, clip.prediction_start, fps, total), self.count)
        times = [i / fps for i in indices]
        decoded: dict[View, list[Frame | None]] = {}
        for view, path in videos.items():
            if path is not None:
                own_total, own_fps, _ = video_info(path)
                own = [min(own_total - 1, round(t * own_fps)) for t in times]
                decoded[view] = list(read_frames(path, own))
        rendered = False
        lacking = [v for v in videos if v not in decoded]
        if lacking and recording.source == Source.SIMULATED:
            if not self.render:
                raise SystemExit(f"clip {clip.id} has no {lacking[0].value} video (--no-render)")
            shape = next((f.shape for fs in decoded.values() for f in fs if f is not None), None)
            height, width = (shape[0], shape[1]) if shape else (self.size, self.size)
            decoded.update(self._render(recording, clip, indices, fps, width, height, lacking))
            rendered = True
        person = f"{clip.agent} (the person)"
        rows: list[tuple[str, list[Frame | None]]] = [
            (f"{person}\nfirst-person view", decoded.get(View.FIRST_PERSON) or [None] * len(times)),
            (
                "room camera\nthird-person view",
                decoded.get(View.THIRD_PERSON) or [None] * len(times),
            ),
        ]
        return ClipFrames(times, rows, rendered)

    def _render(
        self,
        recording: Recording,
        clip: Clip,
        indices: Sequence[int],
        fps: float,
        width: int,
        height: int,
        views: Sequence[View],
    ) -> dict[View, list[Frame | None]]:
        from taskqa.household.frames import render_frames
        from taskqa.household.options import FIRST, THIRD, RenderOptions, view_name

        domain, look = self._domain_and_look()
        names = {View.FIRST_PERSON: FIRST, View.THIRD_PERSON: THIRD}
        from taskqa.render.engine import resolve_backend

        options = RenderOptions(
            fps=fps,
            width=width,
            height=height,
            views=tuple(names[v] for v in views),
            backend=resolve_backend("auto")[0],  # what `taskqa render` draws by default
        )
        frames = render_frames(recording, domain, look, indices, options)
        keys = {View.FIRST_PERSON: view_name(clip.agent), View.THIRD_PERSON: view_name(None)}
        return {view: list(frames[keys[view]]) for view in views}

    def _domain_and_look(self) -> tuple[Any, Any]:
        if self._scene is None:
            from taskqa.corpus import read_corpus
            from taskqa.household.corpus_videos import domain_to_draw
            from taskqa.household.look_spec import load_look

            corpus = self.bench / "corpus"
            self._scene = (domain_to_draw(corpus, read_corpus(corpus)), load_look())
        return self._scene


# --- the sheet ---------------------------------------------------------------------------------
MARGIN = 16
GAP = 6
LABEL_W = 190
MIN_WIDTH = 1100
BACKGROUND = (255, 255, 255)
INK = (20, 20, 20)
GREY = (110, 110, 110)
OTHER = (30, 80, 170)  # the other person's actions
ANSWER = (150, 20, 20)


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _wrap(text: str, font: Any, width: int) -> list[str]:
    """``text`` in lines no wider than ``width`` pixels (a word longer than that on its own)."""
    measure = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        line = ""
        for word in paragraph.split(" "):
            trial = f"{line} {word}" if line else word
            if line and measure.textlength(trial, font=font) > width:
                lines.append(line)
                line = word
            else:
                line = trial
        lines.append(line)
    return lines


ActionLine = tuple[str, str, str | None]  # time span, text, whose action (None: a title)


def _action_lines(title: str, entries: Sequence[Shown], font: Any, width: int) -> list[ActionLine]:
    """A column of actions: its title, then each action's time span and its line, wrapped."""
    lines: list[ActionLine] = [("", title, None)]
    for entry in entries:
        span = f"{entry.start:.1f}-{entry.end:.1f} s"
        for n, part in enumerate(_wrap(entry.text, font, width - 155)):
            lines.append((span if n == 0 else "", part, entry.agent))
    if not entries:
        lines.append(("", "(none)", None))
    return lines


def compose_sheet(
    question: dict[str, Any],
    clip: Clip,
    frames: ClipFrames,
    seen: Sequence[Shown],
    unseen: Sequence[Shown],
    others: Sequence[str] = (),
    options: Sequence[str] | None = None,
) -> tuple[Image.Image, dict[str, Any]]:
    """The sheet: question and answer on top, a row of time-stamped frames per view, then the
    clip's actions and the next unseen ones with their times. Returns the image and where its
    frames are (``views``, ``times``, ``boxes``: per row, ``[x, y, width, height]`` per frame).

    With ``options`` (a viewer study) the sheet is blind: the question and its lettered options,
    the frames, and nothing else: no stored answer, no template, no action list."""
    blind = options is not None
    sample = next((f for _, row in frames.rows for f in row if f is not None), None)
    tile_h, tile_w = sample.shape[:2] if sample is not None else (SIZE, SIZE)
    count = max(1, len(frames.times))
    # a viewer-study sheet wraps its frames, time block by time block, so that its frames stay
    # large enough to see when the sheet is looked at whole
    per_row = min(count, VIEWER_ROW) if options is not None else count
    blocks = [range(k, min(k + per_row, len(frames.times))) for k in range(0, count, per_row)]
    width = max(MIN_WIDTH, 2 * MARGIN + LABEL_W + per_row * (tile_w + GAP))
    text_w = width - 2 * MARGIN
    big, body, small = _font(28), _font(20), _font(17)

    header: list[tuple[str, Any, tuple[int, int, int], int]] = []  # text, font, colour, height
    for line in _wrap(f"Q: {question['question']}", big, text_w):
        header.append((line, big, INK, 36))
    said = (
        [f"A: {question['answer']}"]
        if options is None
        else [f"{LETTERS[k]}) {text}" for k, text in enumerate(options)]
    )
    for answer_line in said:
        for line in _wrap(answer_line, big, text_w):
            header.append((line, big, ANSWER, 36))
    people = f'"the person" = {clip.agent}' + "".join(
        f', "the other person" = {other}' for other in others
    )
    meta = (
        f"{people}  ·  the clip shows {clip.start:.1f}-{clip.prediction_start:.1f} s"
        if blind
        else f"{question['id']}  ·  {question['template']}  ·  {people}  ·  "
        f"clip {clip.id} shows {clip.start:.1f}-{clip.prediction_start:.1f} s"
    )
    header += [(line, small, GREY, 24) for line in _wrap(meta, small, text_w)]
    header_h = MARGIN + sum(h for *_, h in header) + 10

    row_h = tile_h + 30  # the frame, then its time
    frames_h = len(blocks) * len(frames.rows) * (row_h + GAP)

    column_w = (text_w - 20) // 2
    span_w = 140  # "12.0-15.5 s", right-aligned before each action
    columns = [
        _action_lines(
            "Shown in the clip (the other person's actions in blue):", seen, body, column_w
        ),
        _action_lines("Next, not shown (what predictive questions ask):", unseen, body, column_w),
    ]
    line_h = 26
    if blind:
        columns = [[], []]
    actions_h = max(len(c) for c in columns) * line_h + 2 * MARGIN
    height = header_h + frames_h + 10 + actions_h

    image = Image.new("RGB", (width, height), BACKGROUND)
    pen = ImageDraw.Draw(image)
    y = MARGIN
    for text, font, colour, line_height in header:
        pen.text((MARGIN, y), text, fill=colour, font=font)
        y += line_height
    y = header_h
    pen.line([(MARGIN, y - 6), (width - MARGIN, y - 6)], fill=(200, 200, 200), width=1)

    boxes: list[list[list[int]]] = [[] for _ in frames.rows]
    for block in blocks:
        for view, (label, row) in enumerate(frames.rows):
            pen.multiline_text(
                (MARGIN, y + tile_h // 2 - 20), label, fill=INK, font=body, spacing=4
            )
            for column, k in enumerate(block):
                t = frames.times[k]
                x = MARGIN + LABEL_W + column * (tile_w + GAP)
                frame = row[k] if k < len(row) else None
                if frame is None:
                    pen.rectangle([x, y, x + tile_w - 1, y + tile_h - 1], fill=(190, 190, 190))
                    pen.text((x + 6, y + tile_h // 2 - 8), "no video", fill=INK, font=small)
                else:
                    image.paste(Image.fromarray(frame), (x, y))
                boxes[view].append([x, y, tile_w, tile_h])
                stamp = f"{t:.1f} s"
                stamp_w = pen.textlength(stamp, font=body)
                pen.text((x + (tile_w - stamp_w) / 2, y + tile_h + 3), stamp, fill=INK, font=body)
            y += row_h + GAP

    y += 4
    pen.line([(MARGIN, y), (width - MARGIN, y)], fill=(200, 200, 200), width=1)
    y += 8
    for column, lines in enumerate(columns):
        x = MARGIN + column * (column_w + 20)
        for n, (span, text, agent) in enumerate(lines):
            top = y + n * line_h
            if agent is None:  # the column's title
                pen.text((x, top), text, fill=GREY, font=body)
                continue
            colour = INK if agent == clip.agent else OTHER
            if span:
                pen.text(
                    (x + span_w - pen.textlength(span, font=body), top), span, fill=GREY, font=body
                )
            pen.text((x + span_w + 10, top), text, fill=colour, font=body)
    layout = {
        "views": [label.replace("\n", ", ") for label, _ in frames.rows],
        "times": [round(t, 3) for t in frames.times],
        "boxes": boxes,
    }
    return image, layout


def sheet_name(question_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", question_id) + ".png"


def write_sheet(path: Path, image: Image.Image, layout: dict[str, Any]) -> None:
    info = PngInfo()
    info.add_text(SHEET_KEY, json.dumps(layout))
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, format="PNG", pnginfo=info)


def sheet_layout(path: Path) -> dict[str, Any]:
    """Where a sheet's frames are, as ``compose_sheet`` recorded it in the PNG."""
    with Image.open(path) as image:
        text = getattr(image, "text", {})
        return dict(json.loads(text[SHEET_KEY]))


# --- the commands ------------------------------------------------------------------------------
def sample(
    bench: Path,
    count: int,
    seed: int,
    out: Path,
    frames: int = FRAMES,
    fps: float = FPS,
    size: int = SIZE,
    render: bool = True,
    splits: Sequence[str] = ("test",),
) -> None:
    chosen = draw(bench, count, seed, splits)
    recordings = _recordings(bench)
    clips = Benchmark(bench).clips()
    source = FrameSource(bench, frames, fps, size, render)
    folder = out.parent
    by_clip: dict[str, list[int]] = defaultdict(list)
    for number, question in enumerate(chosen):
        by_clip[question["clip"]].append(number)
    to_render = [
        c
        for c in by_clip
        if source.missing(clips[c].clip)
        and recordings[clips[c].recording].source == Source.SIMULATED
    ]
    if to_render and not render:
        raise SystemExit(
            f"{len(to_render)} of the {len(by_clip)} clips have no video file in "
            f"{bench / 'videos.csv'} for both views (first: {to_render[0]}); run without "
            "--no-render to render their frames, or render the corpus and build again"
        )
    print(
        f"frame sheets for {len(chosen)} questions on {len(by_clip)} clips: "
        f"{len(by_clip) - len(to_render)} decoded from the benchmark's videos, {len(to_render)} "
        "rendered "
        f"frame by frame from the corpus (into {folder / FRAMES_DIR} only)",
        file=sys.stderr,
        flush=True,
    )
    lines: list[dict[str, Any]] = [{} for _ in chosen]
    done = 0
    for clip_id, numbers in by_clip.items():
        clip = clips[clip_id].clip
        recording = recordings[clip.recording]
        shown = source.frames(recording, clip)
        seen, unseen = _shown(recording, clip)
        for number in numbers:
            question = chosen[number]
            name = f"{FRAMES_DIR}/{sheet_name(question['id'])}"
            others = [a.id for a in recording.agents if a.id != clip.agent]
            image, layout = compose_sheet(question, clip, shown, seen, unseen, others)
            write_sheet(folder / name, image, layout)
            lines[number] = {
                "id": question["id"],
                "template": question["template"],
                "question": question["question"],
                "answer": question["answer"],
                # "the person" of the question; others are "the other person"
                "person": question["agent"],
                "clip": clip.id,
                "clip_actions": _clip_lines(recording, clip),
                "frames": name,
                "verdict": "",
                "labels": [],
                "needs_video": "",
                "note": "",
            }
            done += 1
            if done % 25 == 0 or done == len(chosen):
                print(f"  {done}/{len(chosen)} sheets", file=sys.stderr, flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    print(f"wrote {len(lines)} questions to {out} and their frame sheets to {folder / FRAMES_DIR}")


def draw_for_viewers(
    bench: Path,
    recordings: int,
    per_recording: int,
    seed: int,
    templates: Sequence[str] = (),
) -> list[tuple[dict[str, Any], tuple[str, ...], int]]:
    """``per_recording`` normal-test questions from each of ``recordings`` recordings, drawn by
    a seeded hash, each with its multiple-choice options (the benchmark's own, whose distractors
    are answers the same text has on other clips) and the right option's index. Questions with
    no fair options (a text with one answer everywhere) are not drawn; with ``templates``, only
    questions whose template id starts with one of them are (a study of new templates)."""
    from taskqa.benchmark.multiple_choice import choice_items

    items = {
        item.question_id: item
        for item in choice_items(Benchmark(bench), "normal")
        if item.split == "test"
    }
    by_recording: dict[str, list[dict[str, Any]]] = defaultdict(list)
    with (bench / "splits" / "normal" / "test.jsonl").open(encoding="utf-8") as stream:
        for line in stream:
            question = json.loads(line)
            wanted = not templates or question["template"].startswith(tuple(templates))
            if question["id"] in items and wanted:
                by_recording[question["recording"]].append(question)
    eligible = sorted(
        (r for r, qs in by_recording.items() if len(qs) >= per_recording),
        key=lambda r: _rank(seed, r),
    )[:recordings]
    drawn = []
    for recording in eligible:
        chosen = sorted(by_recording[recording], key=lambda q: _rank(seed, q["id"]))
        for question in chosen[:per_recording]:
            item = items[question["id"]]
            drawn.append((question, item.options, item.answer))
    return drawn


def viewer_sheets(
    bench: Path,
    recordings: int,
    per_recording: int,
    seed: int,
    out: Path,
    frames: int = VIEWER_FRAMES,
    fps: float = FPS,
    size: int = SIZE,
    templates: Sequence[str] = (),
) -> None:
    """A viewer study: blind sheets (question, options, frames; no answer, no actions), the
    questions file viewers fill in (``choice``: a letter), and the key beside it (``.key.jsonl``,
    which viewers must not be given)."""
    drawn = draw_for_viewers(bench, recordings, per_recording, seed, templates)
    every = _recordings(bench)
    clips = Benchmark(bench).clips()
    source = FrameSource(bench, frames, fps, size, True)
    folder = out.parent
    lines, keys = [], []
    for number, (question, options, right) in enumerate(drawn, start=1):
        clip = clips[question["clip"]].clip
        recording = every[clip.recording]
        shown = source.frames(recording, clip)
        others = [a.id for a in recording.agents if a.id != clip.agent]
        image, layout = compose_sheet(question, clip, shown, [], [], others, options)
        name = f"{FRAMES_DIR}/viewer-{number:03d}.png"
        write_sheet(folder / name, image, layout)
        lines.append(
            {
                "number": number,
                "question": question["question"],
                "options": {LETTERS[k]: text for k, text in enumerate(options)},
                "frames": name,
                "choice": "",
            }
        )
        keys.append(
            {
                "number": number,
                "id": question["id"],
                "template": question["template"],
                "recording": question["recording"],
                "answer": LETTERS[right],
                "answer_text": options[right],
            }
        )
        print(f"  {number}/{len(drawn)} sheets", file=sys.stderr, flush=True)
    folder.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    key = out.with_suffix(".key.jsonl")
    key.write_text("".join(json.dumps(k, ensure_ascii=False) + "\n" for k in keys))
    print(f"wrote {len(lines)} blind questions to {out} (key: {key}; keep it from viewers)")


def viewer_score(answers: Path) -> int:
    """Score a filled-in viewer study against its key; print each miss."""
    key = {k["number"]: k for k in map(json.loads, answers.with_suffix(".key.jsonl").open())}
    filled = [json.loads(line) for line in answers.open(encoding="utf-8") if line.strip()]
    missing = [line["number"] for line in filled if not line.get("choice")]
    if missing:
        print(f"{len(missing)} questions have no choice: {missing[:10]}")
        return 1
    right = 0
    for line in filled:
        expected = key[line["number"]]
        if line["choice"].strip().upper() == expected["answer"]:
            right += 1
        else:
            print(
                f"  miss #{line['number']} {expected['template']}: {line['question']} "
                f"chose {line['choice']} ({line['options'].get(line['choice'].strip().upper())}), "
                f"stored {expected['answer']} ({expected['answer_text']})"
            )
    share = 100 * right / len(filled)
    print(f"viewers answered {right} of {len(filled)} right: {share:.1f}% (target >= 95%)")
    return 0


def _problem(record: dict[str, Any]) -> str | None:
    """Why a filled-in line is outside the rubric, or None."""
    verdict = record.get("verdict")
    labels = record.get("labels", [])
    if verdict not in PROBLEMS:
        return f"verdict {verdict!r} is not one of {', '.join(PROBLEMS)}"
    if not isinstance(labels, list) or any(label not in PROBLEMS for label in labels):
        return f"labels {labels!r} outside the rubric ({', '.join(PROBLEMS)})"
    applied = set(labels) | {verdict}
    if OK in applied and len(applied) > 1:
        return f"labels {sorted(applied)!r}: ok goes with no other label"
    serious = min(applied, key=PROBLEMS.index)
    if verdict != serious:
        return f"verdict {verdict!r}, but its labels hold the more serious {serious!r}"
    if record.get("needs_video") not in NEEDS_VIDEO:
        return f"needs_video {record.get('needs_video')!r}; expected yes or no"
    return None


def summary(review: Path) -> int:
    verdicts: Counter[str] = Counter()
    labelled: Counter[str] = Counter()
    needs: Counter[str] = Counter()
    by_template: Counter[str] = Counter()
    bad = 0
    lines = review.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        record = json.loads(line)
        problem = _problem(record)
        if problem is not None:
            print(f"{review}:{number}: {problem}")
            bad += 1
            continue
        verdict = record["verdict"]
        verdicts[verdict] += 1
        labelled.update(set(record.get("labels", [])) | {verdict})
        needs[record["needs_video"]] += 1
        if verdict != OK:
            by_template[record["template"]] += 1
    total = sum(verdicts.values())
    print(f"{total} questions judged from their frame sheets")
    print(f"  {'label':18} {'verdict':>7} {'labelled':>8} {'share':>7}  target")
    for label in PROBLEMS:
        count = verdicts[label] if label == OK else labelled[label]
        share = 100 * count / total if total else 0.0
        target = _target(label, share)
        print(f"  {label:18} {verdicts[label]:7} {labelled[label]:8} {share:6.1f}%  {target}")
    print(f"  the answer needs the video: {needs['yes']} yes, {needs['no']} no")
    for template, count in by_template.most_common(10):
        print(f"  not ok in {template}: {count}")
    if bad:
        print(f"{bad} lines not filled in by the rubric (left out of the counts above)")
    return 1 if bad else 0


def _target(label: str, share: float) -> str:
    if label in AT_MOST:
        return f"at most {AT_MOST[label]:g}%: {'met' if share <= AT_MOST[label] else 'MISSED'}"
    if label in AT_LEAST:
        return f"at least {AT_LEAST[label]:g}%: {'met' if share >= AT_LEAST[label] else 'MISSED'}"
    return "(no target)"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=textwrap.dedent(__doc__ or "").split("\n\n", 1)[-1],
    )
    commands = parser.add_subparsers(dest="command", required=True)
    pick_parser = commands.add_parser("sample", help="draw questions and write their frame sheets")
    pick_parser.add_argument("bench", type=Path)
    pick_parser.add_argument("--n", type=int, default=200)
    pick_parser.add_argument("--seed", type=int, default=0)
    pick_parser.add_argument(
        "--out", type=Path, required=True, help="JSONL file; sheets go to frames/ beside it"
    )
    pick_parser.add_argument(
        "--splits", default="test", help="comma-separated normal splits to draw from"
    )
    pick_parser.add_argument("--frames", type=int, default=FRAMES, help="frames per view")
    pick_parser.add_argument(
        "--fps", type=float, default=FPS, help="frame grid of rendered frames (no video)"
    )
    pick_parser.add_argument(
        "--size", type=int, default=SIZE, help="side of rendered frames in pixels (no video)"
    )
    pick_parser.add_argument(
        "--no-render",
        action="store_true",
        help="only decode the benchmark's videos; stop if a clip has none",
    )
    count = commands.add_parser("summary", help="count the verdicts of a filled-in review")
    count.add_argument("review", type=Path)
    viewer = commands.add_parser("viewer", help="blind sheets for a viewer study, and its key")
    viewer.add_argument("bench", type=Path)
    viewer.add_argument("--recordings", type=int, default=8)
    viewer.add_argument("--per-recording", type=int, default=10)
    viewer.add_argument("--seed", type=int, default=0)
    viewer.add_argument("--frames", type=int, default=VIEWER_FRAMES, help="frames per view")
    viewer.add_argument("--out", type=Path, required=True)
    viewer.add_argument(
        "--templates",
        default="",
        help="comma-separated template ids or prefixes: draw only their questions",
    )
    scored = commands.add_parser("viewer-score", help="score a filled-in viewer study")
    scored.add_argument("answers", type=Path)
    args = parser.parse_args(argv)
    if args.command == "viewer":
        viewer_sheets(
            args.bench,
            args.recordings,
            args.per_recording,
            args.seed,
            args.out,
            args.frames,
            templates=[t.strip() for t in args.templates.split(",") if t.strip()],
        )
        return 0
    if args.command == "viewer-score":
        return viewer_score(args.answers)
    if args.command == "sample":
        if args.frames < 2:
            parser.error("--frames must be at least 2")
        sample(
            args.bench,
            args.n,
            args.seed,
            args.out,
            frames=args.frames,
            fps=args.fps,
            size=args.size,
            render=not args.no_render,
            splits=[s.strip() for s in args.splits.split(",") if s.strip()],
        )
        return 0
    return summary(args.review)


if __name__ == "__main__":
    sys.exit(main())
