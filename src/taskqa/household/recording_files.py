"""One household recording to files: an MP4 per view, optional instance masks and depth.

Each recording renders on its own (a fresh scene, frames at ``i / fps``), so its files do not
depend on which other recordings a run draws or how many worker processes share the work.
"""

from __future__ import annotations

import io
import os
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from taskqa.atomic import write_bytes
from taskqa.household.frames import frame_count, household_scene, moment_frames, views_drawn
from taskqa.household.look_spec import LookSpec
from taskqa.household.options import RenderOptions
from taskqa.model import Recording, VideoRef, View
from taskqa.render.video import write_mp4
from taskqa.simulation.domain import Domain

MASKS_SUFFIX = ".masks.npz"
DEPTH_SUFFIX = ".depth.npz"


@dataclass
class RenderedRecording:
    """What rendering one recording wrote: its video references, files and frames per view."""

    recording: str
    videos: list[VideoRef] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # relative to the corpus, or uploads' URLs
    frames: int = 0


def render_recording(
    recording: Recording,
    domain: Domain,
    look: LookSpec,
    folder: Path,
    corpus: Path,
    options: RenderOptions,
) -> RenderedRecording:
    """Render one recording into ``folder`` and return the video references (relative to
    ``corpus``)."""
    result = RenderedRecording(recording.id)
    with household_scene(recording, domain, look, options) as scene:
        views = views_drawn(scene.timeline, options)
        agents = [agent for agent, _ in views]
        count = frame_count(recording.duration, options.fps)
        frames: dict[str, list[npt.NDArray[np.uint8]]] = {name: [] for _, name in views}
        labels: dict[str, list[npt.NDArray[np.uint16]]] = {name: [] for _, name in views}
        depths: dict[str, list[npt.NDArray[np.uint16]]] = {name: [] for _, name in views}
        passes = options.masks or options.depth
        shots = ((index / options.fps, agents) for index in range(count))
        for drawn in moment_frames(scene, options, shots, masks=passes):
            for (_, name), frame in zip(views, drawn, strict=True):
                frames[name].append(frame.rgb)
                if options.masks:
                    labels[name].append(frame.labels)
                if options.depth and frame.depth is not None:
                    depths[name].append(millimetres(frame.depth))
        target = folder / recording.id
        for agent, name in views:
            path = target / f"{name}.mp4"
            write_mp4(path, frames[name], options.fps)
            uri = Path(os.path.relpath(path, corpus)).as_posix()
            kind = View.THIRD_PERSON if agent is None else View.FIRST_PERSON
            result.videos.append(VideoRef(uri=uri, view=kind, agent=agent))
            result.files.append(uri)
            if options.masks:
                mask_path = target / f"{name}{MASKS_SUFFIX}"
                write_bytes(mask_path, masks_npz(np.stack(labels[name]), scene.labels))
                result.files.append(Path(os.path.relpath(mask_path, corpus)).as_posix())
            if options.depth:
                depth_path = target / f"{name}{DEPTH_SUFFIX}"
                write_bytes(depth_path, arrays_npz({"depth_mm": np.stack(depths[name])}))
                result.files.append(Path(os.path.relpath(depth_path, corpus)).as_posix())
        result.frames = count
    return result


def millimetres(depth: npt.NDArray[np.float32]) -> npt.NDArray[np.uint16]:
    """Metres as whole millimetres in 16 bits (65.535 m at most: every room is smaller)."""
    whole: npt.NDArray[np.uint16] = np.clip(np.rint(depth * 1000.0), 0, 65535).astype(np.uint16)
    return whole


def masks_npz(labels: npt.NDArray[np.uint16], names: Sequence[str]) -> bytes:
    """An .npz with ``labels`` (frames, height, width; 0 = room) and ``names`` (label -> thing),
    written with fixed zip timestamps so the same masks always give the same bytes."""
    return arrays_npz({"labels": labels, "names": np.asarray(list(names), dtype=np.str_)})


def arrays_npz(arrays: dict[str, npt.NDArray[Any]]) -> bytes:
    """Arrays as an .npz with fixed zip timestamps: the same arrays always give the same bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for key, array in arrays.items():
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(array), allow_pickle=False)
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, member.getvalue())
    return buffer.getvalue()


def read_masks(path: Path) -> tuple[npt.NDArray[np.uint16], list[str]]:
    """The labels and names of a ``.masks.npz`` that ``render_recording`` wrote."""
    with np.load(path, allow_pickle=False) as data:
        return np.asarray(data["labels"], dtype=np.uint16), [str(n) for n in data["names"]]
