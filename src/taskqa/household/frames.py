"""The household frame loop: moments of a recording to pictures, the one way every user draws.

At each moment the scene is brought to the recording's state (``HouseholdScene.set_time``),
with every person where the gaze model puts them (``gaze.Director``), and each asked view is
captured: a person's own eyes, or (None) the room's camera. Videos, masks, the grounding
check's mask statistics, the pixel probe and the contact sheet's stills all draw through
``draw_moment``, and all but the stills through ``moment_frames``, so a frame ``i`` means the
same picture everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np
import numpy.typing as npt

from taskqa.household.gaze import Director, room_camera
from taskqa.household.look_spec import LookSpec
from taskqa.household.options import FIRST, THIRD, RenderOptions, view_name
from taskqa.household.scene import FIRST_PERSON_FOV, Frame, HouseholdScene, View
from taskqa.household.timeline import Timeline
from taskqa.model import Recording
from taskqa.render.engine import Camera, Vec3
from taskqa.simulation.domain import Domain

Gaze = dict[str, tuple[Vec3, Vec3]]  # each person's eye and what they look at
Stand = dict[str, tuple[Vec3, float]]  # each person's standing position and heading
# A moment (seconds) and the views drawn at it: a person's id, or None for the room camera.
Shot = tuple[float, Sequence[str | None]]


def household_scene(
    recording: Recording, domain: Domain, look: LookSpec, options: RenderOptions
) -> HouseholdScene:
    """The recording's room as a scene, drawn as ``options`` say (size, back-end, look)."""
    room = recording.environment or next(iter(domain.spec.rooms))
    return HouseholdScene(
        Timeline(recording, domain),
        domain,
        look,
        room,
        options.width,
        options.height,
        options.backend,
        options.appearance,
        options.appearance_set,
    )


def views_drawn(timeline: Timeline, options: RenderOptions) -> list[tuple[str | None, str]]:
    """(agent, view name) of every view ``options`` asks for: each person's, then the room's."""
    views: list[tuple[str | None, str]] = []
    if FIRST in options.views:
        views += [(agent, view_name(agent)) for agent in timeline.agents]
    if THIRD in options.views:
        views.append((None, THIRD))
    return views


def frame_count(duration: float, fps: float) -> int:
    """Frames of a recording's video: its duration on the frame grid, at least one."""
    return max(1, round(duration * fps))


def view_camera(
    scene: HouseholdScene, options: RenderOptions, agent: str | None, gaze: Gaze, stand: Stand
) -> Camera:
    """The camera of one view at this moment: ``agent``'s eyes, or (None) the room camera,
    framed on the people where the room's look asks."""
    if agent is not None:
        eye, target = gaze[agent]
        return Camera(
            eye=eye, target=target, fov=FIRST_PERSON_FOV, width=options.width, height=options.height
        )
    return room_camera(scene.layout.third_person, gaze, stand, options.width, options.height)


def draw_moment(
    scene: HouseholdScene,
    options: RenderOptions,
    t: float,
    gaze: Gaze,
    stand: Stand,
    agents: Sequence[str | None],
    masks: bool,
) -> list[Frame]:
    """The scene at moment ``t``, people looking and standing as ``gaze`` and ``stand`` say,
    captured in each view of ``agents`` (None: the room camera), in that order; ``masks``
    also draws the instance labels and depth."""
    scene.set_time(t, gaze, stand)
    return [
        scene.capture(View(view_camera(scene, options, agent, gaze, stand), agent), masks=masks)
        for agent in agents
    ]


def moment_frames(
    scene: HouseholdScene, options: RenderOptions, shots: Iterable[Shot], masks: bool
) -> Iterator[list[Frame]]:
    """For each shot in turn, its views' frames (``draw_moment``), every person placed by the
    gaze model, in the order given."""
    director = Director(scene)
    for t, agents in shots:
        gaze, stand = director.at(t)
        yield draw_moment(scene, options, t, gaze, stand, agents, masks)


def render_frames(
    recording: Recording,
    domain: Domain,
    look: LookSpec,
    indices: Sequence[int],
    options: RenderOptions,
) -> dict[str, list[npt.NDArray[np.uint8]]]:
    """Only some frames of a recording, by index on its frame grid (``i / options.fps``), per
    view name (``view_name``: ``<agent>-first``, ``third``), in the order of ``indices``; no
    file is written. The cameras and times are those of a rendered video, so frame ``i``
    shows what frame ``i`` of the video shows, before the video's compression."""
    with household_scene(recording, domain, look, options) as scene:
        views = views_drawn(scene.timeline, options)
        agents = [agent for agent, _ in views]
        frames: dict[str, list[npt.NDArray[np.uint8]]] = {name: [] for _, name in views}
        shots = ((index / options.fps, agents) for index in indices)
        for drawn in moment_frames(scene, options, shots, masks=False):
            for (_, name), frame in zip(views, drawn, strict=True):
                frames[name].append(frame.rgb)
    return frames
