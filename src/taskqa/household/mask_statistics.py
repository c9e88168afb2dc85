"""What each view of a household recording shows at chosen moments: instance-mask pixel counts.

The grounding check of ``taskqa build`` (docs/grounding.md) asks whether the things a question
reads are on screen. This module answers the render half: for one recording and a list of
moments it draws, at low resolution and without encoding any video, the instance masks of every
person's first-person view and of the room camera, and keeps per moment and view the number of
pixels each thing and person covers. The result is a pure function of the recording, the
domain, the look, the moments and the size (pybullet's CPU renderer is deterministic), so it
can be cached on disk by a digest of those inputs and of the render code itself.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from taskqa.atomic import write_text
from taskqa.household.frames import household_scene, moment_frames, views_drawn
from taskqa.household.look_spec import LookSpec
from taskqa.household.options import VIEWS, RenderOptions
from taskqa.model import Recording
from taskqa.simulation.domain import Domain

SIZE = 64  # pixels a side: enough to tell a held cup from an empty hand (docs/grounding.md)
DIGITS = 4  # moments are rounded to 0.1 ms, so the same moment of two clips is drawn once
# Bump when what the statistics mean changes; with the render code's digest it keys the cache.
VERSION = 1
# The code that decides what a frame shows, as (package, module file).
_RENDER_CODE = (
    ("taskqa.render", "engine.py"),
    ("taskqa.render", "easing.py"),
    *(
        ("taskqa.household", name)
        for name in ("look_spec.py", "thing_look.py", "timeline.py", "motion.py", "gaze.py")
    ),
    *(
        ("taskqa.household", name)
        for name in ("scene.py", "options.py", "frames.py", "mask_statistics.py")
    ),
)


def moment(t: float) -> float:
    """A moment as the statistics store it (rounded; see ``DIGITS``)."""
    return round(t, DIGITS)


@dataclass(frozen=True)
class MaskStatistics:
    """Pixels per thing and person, per moment and view, of one recording.

    ``views`` are named as rendered videos are (``P1-first``, ``third``); ``pixels[i][j]``
    maps each label shown at ``times[i]`` in ``views[j]`` to its pixel count; ``drawn`` is
    every thing and person the scene draws at all (a name outside it is never on screen).
    """

    recording: str
    size: int
    views: tuple[str, ...]
    times: tuple[float, ...]
    pixels: tuple[tuple[dict[str, int], ...], ...]
    drawn: frozenset[str]

    def share(self, name: str, t: float, view: str) -> float:
        """The share of the frame ``name`` covers at moment ``t`` in ``view`` (0 if not drawn)."""
        index = self._time_index.get(moment(t))
        if index is None or view not in self.views:
            raise KeyError(f"moment {t} in view {view!r} was not drawn")
        count = self.pixels[index][self.views.index(view)].get(name, 0)
        return count / (self.size * self.size)

    def has(self, t: float) -> bool:
        return moment(t) in self._time_index

    @cached_property
    def _time_index(self) -> dict[float, int]:
        return {t: i for i, t in enumerate(self.times)}

    def to_json(self) -> str:
        return json.dumps(
            {
                "recording": self.recording,
                "size": self.size,
                "views": list(self.views),
                "times": list(self.times),
                "pixels": [[dict(sorted(v.items())) for v in row] for row in self.pixels],
                "drawn": sorted(self.drawn),
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> MaskStatistics:
        data = json.loads(text)
        return cls(
            recording=str(data["recording"]),
            size=int(data["size"]),
            views=tuple(data["views"]),
            times=tuple(float(t) for t in data["times"]),
            pixels=tuple(tuple(dict(v) for v in row) for row in data["pixels"]),
            drawn=frozenset(data["drawn"]),
        )


def mask_statistics(
    recording: Recording,
    domain: Domain,
    look: LookSpec,
    times: Sequence[float],
    size: int = SIZE,
    views: Sequence[str] = VIEWS,
) -> MaskStatistics:
    """Draw ``recording`` at every moment of ``times`` in ``views`` (``first``: every person's
    own view; ``third``: the room camera) at ``size`` x ``size`` and count each label's pixels.
    """
    options = RenderOptions(width=size, height=size, views=tuple(views))
    moments = sorted({moment(t) for t in times})
    pixels: list[tuple[dict[str, int], ...]] = []
    with household_scene(recording, domain, look, options) as scene:
        cameras = views_drawn(scene.timeline, options)
        agents = [agent for agent, _ in cameras]
        names = np.asarray(scene.labels)
        shots = ((t, agents) for t in moments)
        for frames in moment_frames(scene, options, shots, masks=True):
            row = []
            for frame in frames:
                counts = np.bincount(frame.labels.ravel(), minlength=len(names))
                shown = np.flatnonzero(counts)
                row.append({str(names[k]): int(counts[k]) for k in shown if k != 0})
            pixels.append(tuple(row))
        drawn = frozenset(scene.labels[1:])
    return MaskStatistics(
        recording=recording.id,
        size=size,
        views=tuple(name for _, name in cameras),
        times=tuple(moments),
        pixels=tuple(pixels),
        drawn=drawn,
    )


@lru_cache(maxsize=1)
def render_code_digest() -> str:
    """A digest of the code that decides what a frame shows: a cache entry made by other code
    is never read back."""
    digest = hashlib.sha256(f"grounding-{VERSION}".encode())
    for package, name in _RENDER_CODE:
        digest.update(resources.files(package).joinpath(name).read_bytes())
    return digest.hexdigest()


def statistics_key(
    recording_json: str,
    domain: Domain,
    look_text: str,
    times: Sequence[float],
    size: int,
    views: Sequence[str],
) -> str:
    """The cache key of ``mask_statistics`` for these inputs."""
    digest = hashlib.sha256(render_code_digest().encode())
    for part in (
        recording_json,
        domain.source_text,
        look_text,
        json.dumps([sorted({moment(t) for t in times}), size, list(views)]),
    ):
        data = part.encode("utf-8")
        digest.update(f"{len(data)}:".encode())
        digest.update(data)
    return digest.hexdigest()


def cached_mask_statistics(
    recording: Recording,
    recording_json: str,
    domain: Domain,
    look: LookSpec,
    look_text: str,
    times: Sequence[float],
    size: int = SIZE,
    views: Sequence[str] = VIEWS,
    cache: Path | None = None,
) -> tuple[MaskStatistics, bool]:
    """``mask_statistics``, read from ``cache`` (a folder) when an entry for exactly these
    inputs is there, else drawn and stored there; also whether it was drawn now."""
    path = None
    if cache is not None:
        key = statistics_key(recording_json, domain, look_text, times, size, views)
        path = cache / key[:2] / f"{key}.json"
        try:
            return MaskStatistics.from_json(path.read_text(encoding="utf-8")), False
        except (OSError, ValueError, KeyError, TypeError):
            pass  # absent or damaged: draw again
    statistics = mask_statistics(recording, domain, look, times, size, views)
    if path is not None:
        with contextlib.suppress(OSError):  # a read-only cache only costs time
            write_text(path, statistics.to_json())
    return statistics, True
