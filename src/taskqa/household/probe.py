"""The pixel probe: can a simple classifier read each visible state from the pixels alone?

For every action of a recording, the acting person's first-person view is rendered (with
instance masks) a little after the action starts and a little before it ends. Every thing the
action involves whose state is annotated at that moment and that covers enough pixels gives a
sample: features from its masked crop (a small thumbnail and colour histograms) and, per
visible attribute, its annotated value. A forest of randomised trees per attribute learns from
the train recordings and is scored on held-out recordings (split by recording with a seed),
against always answering the train split's most frequent value.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt
from PIL import Image
from rich.table import Table

from taskqa.atomic import write_text
from taskqa.corpus import dump_recording, read_corpus
from taskqa.execution import Execution, run_shards
from taskqa.household.corpus_videos import domain_to_draw
from taskqa.household.frames import household_scene, moment_frames
from taskqa.household.look_spec import load_look, look_source, parse_look
from taskqa.household.options import RenderOptions
from taskqa.household.selection import select_recordings
from taskqa.jsonio import dumps
from taskqa.model import UNKNOWN, Attribute, Recording
from taskqa.problems import InvalidInputError, Problem
from taskqa.simulation.domain import parse_domain

VISIBLE_ATTRIBUTES = (
    Attribute.OPENNESS,
    Attribute.EMPTINESS,
    Attribute.CLEANLINESS,
    Attribute.SHAPE,
    Attribute.POWEREDNESS,
    Attribute.TEMPERATURE,
    Attribute.COOKEDNESS,
    Attribute.WRAPPEDNESS,
    Attribute.MIXTURE,
)
MIN_PIXELS = 40  # a thing smaller than this in the picture is not a fair sample
THUMB = 16  # thumbnail side
EARLY, LATE = 0.15, 0.9  # where in an action the before and after pictures are taken
TARGET = 0.9


@dataclass(frozen=True)
class Sample:
    recording: str
    thing: str
    labels: dict[str, str]  # attribute value -> annotated value
    features: npt.NDArray[np.float32]


def crop_features(
    rgb: npt.NDArray[np.uint8], mask: npt.NDArray[np.bool_]
) -> npt.NDArray[np.float32]:
    """A masked thumbnail of the thing, colour histograms of its pixels (RGB levels and
    hue/saturation/value), and its size in the picture."""
    rows = np.flatnonzero(mask.any(axis=1))
    cols = np.flatnonzero(mask.any(axis=0))
    top, bottom, left, right = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
    crop = rgb[top:bottom, left:right].copy()
    crop[~mask[top:bottom, left:right]] = 0
    thumb = np.asarray(Image.fromarray(crop).resize((THUMB, THUMB), Image.Resampling.BILINEAR))
    colours = rgb[mask]
    pixels = colours // 64  # 4 levels per channel
    bins = pixels[:, 0].astype(np.int64) * 16 + pixels[:, 1] * 4 + pixels[:, 2]
    histogram = np.bincount(bins, minlength=64).astype(np.float32) / max(1, len(bins))
    # Hue tells dirt from shade and juice from an empty glass better than RGB levels do.
    hsv = np.asarray(Image.fromarray(colours.reshape(1, -1, 3)).convert("HSV")).reshape(-1, 3)
    hsv = hsv.astype(np.int64)
    hue_bins = (hsv[:, 0] * 12 // 256) * 9 + (hsv[:, 1] * 3 // 256) * 3 + hsv[:, 2] * 3 // 256
    hues = np.bincount(hue_bins, minlength=108).astype(np.float32) / max(1, len(hue_bins))
    area = float(mask.sum()) / mask.size
    shape = np.asarray([area, (bottom - top) / mask.shape[0], (right - left) / mask.shape[1]])
    parts = [thumb.reshape(-1).astype(np.float32) / 255, histogram * 4, hues * 4, shape]
    return np.concatenate(parts).astype(np.float32)


# A moment to draw for the probe: when, whose eyes, and each thing to read there with its
# annotated visible values (attribute -> value).
ProbeMoment = tuple[float, str, list[tuple[str, dict[str, str]]]]


def moments_to_read(recording: Recording, drawn: Sequence[str]) -> list[ProbeMoment]:
    """Every action's early and late moment, in the acting person's eyes, with the things of
    ``drawn`` it involves whose state there has a known visible value; moments with nothing
    to read are left out."""
    wanted: list[ProbeMoment] = []
    for action in sorted(recording.actions, key=lambda a: (a.start, a.id)):
        for share, moment in ((EARLY, "before"), (LATE, "after")):
            things = []
            for transition in action.transitions:
                if transition.is_agent or transition.entity not in drawn:
                    continue
                snapshot = transition.before if moment == "before" else transition.after
                labels = {
                    a.value: v
                    for a, v in snapshot.attributes.items()
                    if a in VISIBLE_ATTRIBUTES and v != UNKNOWN
                }
                if labels:
                    things.append((transition.entity, labels))
            if things:
                t = action.start + share * (action.end - action.start)
                wanted.append((t, action.agent, things))
    return wanted


def recording_samples(
    recording: Recording,
    domain_source: str,
    domain_file: str,
    look_source: str,
    look_file: str,
    size: int,
    backend: str = "tiny",
) -> list[Sample]:
    """Probe samples of one recording (rendered from scratch: deterministic per recording)."""
    from taskqa.render.engine import quiet_pybullet

    quiet_pybullet()
    domain = parse_domain(domain_source, domain_file)
    look = parse_look(look_source, look_file)
    options = RenderOptions(width=size, height=size, backend=backend)
    samples: list[Sample] = []
    with household_scene(recording, domain, look, options) as scene:
        wanted = moments_to_read(recording, scene.things)
        shots = ((t, [agent]) for t, agent, _ in wanted)
        for (_, _, things), (frame,) in zip(
            wanted, moment_frames(scene, options, shots, masks=True), strict=True
        ):
            for name, labels in things:
                mask = frame.labels == scene.label(name)
                if int(mask.sum()) < MIN_PIXELS:
                    continue
                samples.append(Sample(recording.id, name, labels, crop_features(frame.rgb, mask)))
    return samples


# What every probe shard shares: domain and look (text and file name) and the frame size.
ProbeContext = tuple[str, str, str, str, int, str]  # ..., size, back-end


def _work(context: ProbeContext, line: str) -> list[Sample]:
    recording = Recording.model_validate_json(line)
    return recording_samples(recording, *context)


@dataclass
class AttributeScore:
    attribute: str
    train: int
    test: int
    accuracy: float
    majority: float
    majority_value: str
    values: dict[str, int] = field(default_factory=dict)  # test counts per value

    @property
    def passes(self) -> bool:
        return self.accuracy >= TARGET


@dataclass
class ProbeReport:
    seed: int
    train_recordings: list[str]
    test_recordings: list[str]
    scores: list[AttributeScore]

    def to_json(self) -> str:
        payload = {
            "seed": self.seed,
            "train_recordings": self.train_recordings,
            "test_recordings": self.test_recordings,
            "target": TARGET,
            "attributes": [
                {
                    "attribute": s.attribute,
                    "train_samples": s.train,
                    "test_samples": s.test,
                    "accuracy": round(s.accuracy, 4),
                    "majority_accuracy": round(s.majority, 4),
                    "majority_value": s.majority_value,
                    "test_values": s.values,
                }
                for s in self.scores
            ],
        }
        return dumps(payload)

    def to_markdown(self) -> str:
        lines = [
            "# Pixel probe",
            "",
            f"Train recordings: {len(self.train_recordings)}; held-out recordings: "
            f"{len(self.test_recordings)} (seed {self.seed}). Target: {TARGET:.0%} per attribute.",
            "",
            "| attribute | train | test | probe accuracy | majority class | test values |",
            "|---|---:|---:|---:|---:|---|",
        ]
        for s in self.scores:
            values = ", ".join(f"{v} {n}" for v, n in sorted(s.values.items()))
            lines.append(
                f"| {s.attribute} | {s.train} | {s.test} | {s.accuracy:.1%} | "
                f"{s.majority:.1%} ({s.majority_value}) | {values} |"
            )
        below = [s.attribute for s in self.scores if not s.passes]
        lines += ["", f"Under {TARGET:.0%}: {', '.join(below) if below else 'none'}.", ""]
        return "\n".join(lines)

    def table(self) -> Table:
        table = Table(title="pixel probe (held-out recordings)")
        for column in ("attribute", "train", "test", "probe", "majority"):
            table.add_column(column, justify="left" if column == "attribute" else "right")
        for s in self.scores:
            mark = "" if s.passes else " ✗"
            table.add_row(
                s.attribute,
                str(s.train),
                str(s.test),
                f"{s.accuracy:.1%}{mark}",
                f"{s.majority:.1%}",
            )
        return table


def split_recordings(
    ids: Sequence[str], test_share: float, seed: int
) -> tuple[list[str], list[str]]:
    order = sorted(ids)
    random.Random(seed).shuffle(order)
    count = max(1, min(len(order) - 1, round(len(order) * test_share)))
    test = set(order[:count])
    return [i for i in ids if i not in test], [i for i in ids if i in test]


def score_attributes(
    samples: Sequence[Sample], test_ids: set[str], seed: int
) -> list[AttributeScore]:
    from sklearn.ensemble import ExtraTreesClassifier  # type: ignore[import-untyped]

    scores = []
    for attribute in VISIBLE_ATTRIBUTES:
        key = attribute.value
        rows = [s for s in samples if key in s.labels]
        train = [s for s in rows if s.recording not in test_ids]
        test = [s for s in rows if s.recording in test_ids]
        if not train or not test:
            continue
        y_train = [s.labels[key] for s in train]
        y_test = [s.labels[key] for s in test]
        majority_value = sorted(Counter(y_train).items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        majority = sum(v == majority_value for v in y_test) / len(y_test)
        if len(set(y_train)) == 1:
            accuracy = majority
        else:
            # Trees take colour histograms as they are (no scaling) and find the few bins that
            # matter (the juice's hue, the dirt's); one job and a fixed seed keep it repeatable.
            model = ExtraTreesClassifier(n_estimators=300, random_state=seed, n_jobs=1)
            model.fit(np.stack([s.features for s in train]), y_train)
            predicted = model.predict(np.stack([s.features for s in test]))
            accuracy = float(np.mean([p == y for p, y in zip(predicted, y_test, strict=True)]))
        scores.append(
            AttributeScore(
                key,
                len(train),
                len(test),
                accuracy,
                majority,
                majority_value,
                dict(Counter(y_test)),
            )
        )
    return scores


def run_probe(
    corpus: Path,
    out: Path,
    seed: int = 0,
    limit: int | None = None,
    test_share: float = 0.3,
    size: int = 224,
    workers: int = 1,
    on_progress: Callable[[int], None] | None = None,
    execution: Execution | None = None,
    backend: str = "tiny",
) -> ProbeReport:
    recordings = select_recordings(read_corpus(corpus), limit=limit)
    if len(recordings) < 2:
        raise InvalidInputError(
            [Problem(str(corpus), "", "the probe needs at least two recordings")]
        )
    domain = domain_to_draw(corpus, recordings)
    load_look()
    look_text, look_file = look_source(None)
    context: ProbeContext = (
        domain.source_text, domain.file_name, look_text, look_file, size, backend
    )  # fmt: skip
    lines = [dump_recording(r) for r in recordings]
    labels = [f"{index} (recording {r.id})" for index, r in enumerate(recordings)]
    samples: list[Sample] = []
    with (execution or Execution(workers=workers)).open() as executor:
        for result in run_shards(executor, _work, context, lines, labels):
            samples += result
            if on_progress:
                on_progress(1)
    ids = [r.id for r in recordings]
    train_ids, test_ids = split_recordings(ids, test_share, seed)
    report = ProbeReport(seed, train_ids, test_ids, score_attributes(samples, set(test_ids), seed))
    write_text(out / "probe.json", report.to_json())
    write_text(out / "probe.md", report.to_markdown())
    return report
