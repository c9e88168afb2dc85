"""Reading a CaptainCook4D annotation release into taskqa recordings.

Every file is checked, and every cross-file reference resolved, before any recording is built,
so a broken release raises one InvalidInputError listing all its problems and yields nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from taskqa.jsonio import load_json
from taskqa.model import (
    ActionSegment,
    Agent,
    ErrorTag,
    Procedure,
    Recording,
    Source,
    StepError,
    StepExecution,
    TaskGraph,
    VideoRef,
    View,
)
from taskqa.problems import InvalidInputError, Problem, problems_from_validation_error
from taskqa.sources.captaincook4d.checks import (
    Indexed,
    check_catalog,
    check_error_annotations,
    check_step_annotations,
    error_steps,
    local_ids,
    localizers,
    mapping_problems,
    read_durations,
    unknown_global_problems,
)
from taskqa.sources.captaincook4d.graphs import (
    COMPLETE_FILE,
    GRAPH_FOLDER,
    activity_names,
    graphs_from_folder,
)
from taskqa.sources.captaincook4d.mapping import StepLocalizer
from taskqa.sources.captaincook4d.raw import (
    RawCompleteRecording,
    RawErrorRecording,
    RawStep,
    time_order,
    verb_of,
)

ANNOTATIONS = "annotation_json"
ERROR_FILE = "error_annotations.json"
CATALOG_FILE = "step_idx_description.json"
VIDEO_INFORMATION = Path("metadata") / "video_information.csv"

FPS = 29.97
"""An assumption: the release states no frame rate (its times are seconds); GoPro's NTSC rate."""

Checked = TypeVar("Checked")
UNREADABLE: Any = object()


@dataclass
class Release:
    """The parsed files of one release; only meaningful when no problem was found."""

    records: Indexed = field(default_factory=list)
    complete: dict[str, RawCompleteRecording] = field(default_factory=dict)
    catalog: dict[int, str] | None = None
    durations: dict[str, float] = field(default_factory=dict)
    graphs: dict[int, TaskGraph] = field(default_factory=dict)


def video_uri(recording_id: str) -> str:
    """Where CaptainCook4D's downloader puts the 360p GoPro video, relative to its output folder."""
    return f"gopro/resolution_360p/{recording_id}_360p.mp4"


def read_captaincook4d(root: Path) -> list[Recording]:
    """One Recording per entry of ``annotation_json/error_annotations.json``, in file order.

    ``root`` is the CaptainCook4D folder with ``annotation_json/``, ``task_graphs/`` and
    (optionally) ``metadata/video_information.csv``. Raises InvalidInputError with every problem.
    """
    release, problems = check_release(root)
    if problems:
        raise InvalidInputError(problems)
    by_activity = localizers(release.graphs, release.catalog)
    recordings: list[Recording] = []
    for index, record in release.records:
        info = release.complete[record.recording_id]
        duration = release.durations.get(record.recording_id)
        try:
            recordings.append(_recording(record, info, by_activity[record.activity_id], duration))
        except ValidationError as error:  # a safety net: the checks should have caught it
            problems.extend(problems_from_validation_error(ERROR_FILE, [index], error))
    if problems:
        raise InvalidInputError(problems)
    return recordings


def check_release(root: Path) -> tuple[Release, list[Problem]]:
    """Parse and cross-check every file of the release; report all problems found."""
    annotations = root / ANNOTATIONS
    if not annotations.is_dir():
        message = (
            f"no {ANNOTATIONS}/ folder; expected the CaptainCook4D folder with {ANNOTATIONS}/, "
            f"{GRAPH_FOLDER}/ and metadata/"
        )
        return Release(), [Problem(str(root), "", message)]
    problems: list[Problem] = []
    release = Release(
        records=_checked(annotations / ERROR_FILE, check_error_annotations, [], problems)
    )
    complete_data = _load(annotations / COMPLETE_FILE, problems)
    if (annotations / CATALOG_FILE).is_file():
        no_catalog: dict[int, str] = {}
        release.catalog = _checked(annotations / CATALOG_FILE, check_catalog, no_catalog, problems)
    if (root / VIDEO_INFORMATION).is_file():
        release.durations, found = read_durations(root / VIDEO_INFORMATION)
        problems.extend(found)
    if release.catalog is not None:
        steps = error_steps(release.records)
        problems.extend(unknown_global_problems(ERROR_FILE, steps, release.catalog))
    if complete_data is UNREADABLE:
        return release, problems  # without names no graph can be found: nothing more to check
    complete, found = check_step_annotations(complete_data, COMPLETE_FILE, complete=True)
    problems.extend(found)
    if not isinstance(complete_data, dict):
        return release, problems  # its shape is reported; every recording would be "unlisted"
    release.complete = {k: r for k, r in complete.items() if isinstance(r, RawCompleteRecording)}
    activities, _ = activity_names(COMPLETE_FILE, list(release.complete.items()), [])
    release.graphs, found = graphs_from_folder(root / GRAPH_FOLDER, activities)
    problems.extend(found)
    problems.extend(_pairing_problems(release, set(complete_data)))
    problems.extend(_mapping_problems(release, activities))
    return release, problems


def _load(path: Path, problems: list[Problem]) -> Any:
    """The file's JSON, or UNREADABLE after recording why (a JSON ``null`` is data, not failure)."""
    try:
        return load_json(path)
    except InvalidInputError as error:
        problems.extend(error.problems)
        return UNREADABLE


def _checked(
    path: Path,
    check: Callable[[Any, str], tuple[Checked, list[Problem]]],
    default: Checked,
    problems: list[Problem],
) -> Checked:
    data = _load(path, problems)
    if data is UNREADABLE:
        return default
    parsed, found = check(data, str(path))
    problems.extend(found)
    return parsed


def _pairing_problems(release: Release, listed: set[str]) -> list[Problem]:
    """Each recording must be in complete_step_annotations.json, under the same activity."""
    problems = []
    for index, record in release.records:
        info = release.complete.get(record.recording_id)
        if record.recording_id not in listed:
            message = (
                f"recording {record.recording_id!r} is not in {COMPLETE_FILE}; expected its "
                "activity name, person and environment there"
            )
            problems.append(Problem.at(ERROR_FILE, [index, "recording_id"], message))
        elif info is not None and info.activity_id != record.activity_id:
            message = (
                f"activity {record.activity_id} differs from {info.activity_id}, the activity "
                f"{COMPLETE_FILE} gives {record.recording_id!r}; expected the same"
            )
            problems.append(Problem.at(ERROR_FILE, [index, "activity_id"], message))
    return problems


def _mapping_problems(release: Release, activities: Mapping[int, str]) -> list[Problem]:
    # A graph that failed to load is reported once, by its file, not again for each recording.
    mappable = [
        (index, record)
        for index, record in release.records
        if record.activity_id in release.graphs or record.activity_id not in activities
    ]
    return mapping_problems(ERROR_FILE, mappable, localizers(release.graphs, release.catalog))


def _recording(
    record: RawErrorRecording,
    info: RawCompleteRecording,
    localizer: StepLocalizer,
    listed_duration: float | None,
) -> Recording:
    agent = Agent(id=f"person-{info.person_id}")
    local = local_ids(record, localizer)
    ordered = [
        (record.step_annotations[i], _mapped(local[i])) for i in time_order(record.step_annotations)
    ]
    actions = _actions(ordered, agent.id, info.activity_name)
    return Recording(
        id=record.recording_id,
        source=Source.CAPTAINCOOK4D,
        duration=_duration(listed_duration, actions),
        fps=FPS,
        environment=str(info.environment),
        agents=[agent],
        videos=[
            VideoRef(uri=video_uri(record.recording_id), view=View.FIRST_PERSON, agent=agent.id)
        ],
        tasks=[info.activity_name],
        actions=actions,
        procedures=[
            Procedure(
                task_graph=localizer.graph,
                steps=[_execution(step, step_id, agent.id) for step, step_id in ordered],
            )
        ],
        metadata={
            "activity_id": record.activity_id,
            "person_id": info.person_id,
            "is_error": record.is_error,
        },
    )


def _mapped(local_id: str | None) -> str:
    if local_id is None:  # check_release reports every unmapped step before any is built
        raise AssertionError("an unmapped step reached the reader")
    return local_id


def _execution(step: RawStep, step_id: str, agent: str) -> StepExecution:
    missing = step.is_missing
    return StepExecution(
        step=step_id,
        description=step.description,
        start=None if missing else step.start_time,
        end=None if missing else step.end_time,
        errors=[StepError(tag=ErrorTag(e.tag), description=e.description) for e in step.errors],
        modified_description=step.modified_description,
        source_step_id=step.step_id,
        agent=agent,
    )


def _actions(ordered: list[tuple[RawStep, str]], agent: str, task: str) -> list[ActionSegment]:
    """One segment per performed step; a global id done twice gets ids step-N, step-N-2, ..."""
    done: Counter[int] = Counter()
    actions = []
    for step, step_id in ordered:
        if step.is_missing:
            continue
        done[step.step_id] += 1
        repeat = "" if done[step.step_id] == 1 else f"-{done[step.step_id]}"
        actions.append(
            ActionSegment(
                id=f"step-{step.step_id}{repeat}",
                agent=agent,
                start=step.start_time,
                end=step.end_time,
                verb=verb_of(step.description) or step.description,
                tasks=[task],
                step=step_id,
            )
        )
    return sorted(actions, key=lambda action: (action.start, action.end))


def _duration(listed: float | None, actions: list[ActionSegment]) -> float:
    # video_information.csv rounds to 0.01 s, so nine recordings' last steps end a few
    # milliseconds after the listed duration; the annotated end wins.
    last_end = max((action.end for action in actions), default=0.0)
    return last_end if listed is None else max(listed, last_end)
