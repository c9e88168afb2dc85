"""The grounding check of ``taskqa build``: a question's evidence must be on screen.

Every object and person whose state, action or relation a question's program reads must be
visible, at the moments that matter, in a view the benchmark ships for the clip: the asked
person's first-person view, or the room camera where it shows the thing large enough. Questions
whose evidence is off screen are dropped before balancing and counted per reason. The rules,
thresholds and why are in docs/grounding.md; in short:

* **What a program reads** (``benchmark/needs``): the program is run on the clip, and every
  interval it reads is noted: the input of ``query``, ``verify`` and ``depend``, the anchor of
  ``localize`` and the action ``counterfactual`` removes. Of each such action the check needs
  the objects its conditions name (``obj@...``), the object a query answers (``obj$``), and,
  where the action is found or answered by its words (``hoi@...``, ``hoi$``), the action
  itself: every object it involves and, for the other person's action, that person.
  A nested reference (``obj@<query(...)>``, "the last thing the person changed") reads what
  its own program reads.
* **When**: an action's start, middle and end, clamped to the clip. An action of the unseen
  future is not shown at all: the objects a predictive question names must be on screen at
  some moment of the clip instead, and the future action's own objects are not required.
* **Seen**: at one of those moments the thing covers at least ``FIRST_PERSON_SHARE`` of the
  asked person's first-person frame or ``ROOM_SHARE`` of the room camera's frame, in instance
  masks drawn at ``SIZE`` x ``SIZE`` (``taskqa.household.mask_statistics``). The asked person is the
  camera of their own view and always counts as seen.
* **Told apart**: no object the question names (a condition's ``obj@``, the object it
  answers, an action's objects read by its words) has a look-alike in the recording: another
  object of the same colour whose category is the same or in one ``lookalike`` group of the
  domain (or of the built-in world, whose look draws the masks and videos). "The blue mug"
  beside a blue cup is about either, on screen. This is decided before any mask is drawn.

The check runs per recording through the executor interface, so the kept questions are the
same for any number of workers; the mask statistics are cached on disk by a digest of their
inputs (``<taskqa cache>/grounding``, see ``taskqa.data.cache``).
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taskqa.benchmark.lookalikes import (
    named_twin,
    recording_twins,
)
from taskqa.benchmark.needs import Need, Unmet, evidence
from taskqa.execution import Execution, ShardJournal, fingerprint, run_shards
from taskqa.jsonio import parse_json
from taskqa.model import Recording, Source
from taskqa.problems import InvalidInputError, Problem
from taskqa.programs.clips import ClipRecord
from taskqa.programs.records import ClipView, Interval
from taskqa.questions.world import CorpusWorld

if TYPE_CHECKING:
    pass

SIZE = 64
FIRST_PERSON_SHARE = 0.002  # of the asked person's first-person frame: 8 of 64 x 64 pixels
ROOM_SHARE = 0.003  # of the room camera's frame: 12 of 64 x 64 pixels, "large enough"
PREFIX = "grounding: "
OBJECT_OFF = PREFIX + "object not on screen ({})"
PERSON_OFF = PREFIX + "person not on screen"
UNDRAWN = PREFIX + "action not acted out by the renderer ({})"
LOOKALIKE = PREFIX + "a look-alike of a named object is in the recording ({})"


# --- moments and verdicts --------------------------------------------------------------------
def action_moments(interval: Interval, start: float, end: float) -> tuple[float, ...]:
    """An action's start, middle and end, each clamped to the clip ``[start, end]``."""
    chosen = (interval.start, (interval.start + interval.end) / 2, interval.end)
    return tuple(sorted({min(max(t, start), end) for t in chosen}))


def clip_moments(view: ClipView) -> dict[str | None, tuple[float, ...]]:
    """The moments of every shown action of a clip (its own and the other person's), and under
    None every moment of the clip's own actions (where a predictive question's objects must
    show)."""
    start, end = view.clip.start, view.clip.prediction_start
    found: dict[str | None, tuple[float, ...]] = {
        i.id: action_moments(i, start, end) for i in (*view.observed, *view.others)
    }
    found[None] = tuple(sorted({t for i in view.observed for t in found[i.id]})) or (start,)
    return found


@dataclass(frozen=True)
class Thresholds:
    first_person: float = FIRST_PERSON_SHARE
    room: float = ROOM_SHARE


def seen(
    statistics: Any,
    entity: str,
    times: Sequence[float],
    views: Sequence[tuple[str, float]],
) -> bool:
    """Whether ``entity`` covers at least a view's share of its frame at one of ``times`` in one
    of ``views`` (view name, share); ``statistics`` is a ``MaskStatistics``."""
    if entity not in statistics.drawn:
        return False
    return any(statistics.share(entity, t, name) >= share for t in times for name, share in views)


def unmet(
    needs: Sequence[Need],
    statistics: Any,
    moments: Mapping[str | None, tuple[float, ...]],
    asked: str,
    views: Sequence[tuple[str, float]],
) -> Unmet | None:
    """A question's first need that no view meets at its moments, or None."""
    for need in needs:
        if need.undrawn:
            return need, ()
        if need.person and need.entity == asked:
            continue  # the asked person's own view is their eyes
        times = moments.get(need.action) or moments[None]
        if not seen(statistics, need.entity, times, views):
            return need, times
    return None


def reason(need: Need) -> str:
    """How a dropped question is counted: ``grounding: object not on screen (<object>)``,
    ``grounding: person not on screen``, ``grounding: action not acted out by the renderer
    (<verb>)`` or ``grounding: a look-alike of a named object is in the recording
    (<object>)``."""
    if need.twin is not None:
        return LOOKALIKE.format(need.entity)
    if need.undrawn:
        return UNDRAWN.format(need.entity)
    return PERSON_OFF if need.person else OBJECT_OFF.format(need.entity)


# --- one recording -----------------------------------------------------------------------------
# What every grounding shard shares: the domain and look (text and file name), verb templates,
# the clips file's name, the mask size, the thresholds and the cache folder (or None).
GroundingContext = tuple[
    str, str, str, str, dict[str, str] | None, str, int, Thresholds, str | None
]


def shipped_views(recording: Recording, agent: str) -> list[str]:
    """The views the benchmark ships for a clip of ``agent``: those rendered (the agent's own
    first-person video and the room camera, where there), or, before rendering, the two that
    ``taskqa render`` makes by default."""
    from taskqa.household.options import THIRD, view_name
    from taskqa.model import View as ViewKind

    rendered = [v for v in recording.videos if not v.uri.startswith("sim://")]
    if not rendered:
        return [view_name(agent), THIRD]
    names = []
    if any(v.view == ViewKind.FIRST_PERSON and v.agent == agent for v in rendered):
        names.append(view_name(agent))
    if any(v.view == ViewKind.THIRD_PERSON for v in rendered):
        names.append(THIRD)
    return names


def ground_recording(context: GroundingContext, item: str) -> dict[str, Any]:
    """One recording's questions judged (a shard): ``reasons`` (None for kept) in question
    order, and ``drawn``, the frames drawn now (0 when the cache had them)."""
    judged, drawn = judge_recording(context, item)
    return {"reasons": [None if u is None else reason(u[0]) for u in judged], "drawn": drawn}


def judge_recording(context: GroundingContext, item: str) -> tuple[list[Unmet | None], int]:
    """The first unmet need of each question of a shard's item (None: its evidence is on
    screen, or it has no answer to check), and the mask frames drawn now."""
    from taskqa.household.look_spec import parse_look
    from taskqa.household.mask_statistics import cached_mask_statistics
    from taskqa.household.options import FIRST, THIRD
    from taskqa.render.engine import quiet_pybullet
    from taskqa.simulation.domain import parse_domain

    domain_text, domain_file, look_text, look_file, verbs, clips_file, size, limits, cache = context
    quiet_pybullet()
    payload = json.loads(item)
    recording_json = payload["recording"]
    recording = Recording.model_validate_json(recording_json)
    records = [ClipRecord.model_validate(r) for r in payload["clips"]]
    domain = parse_domain(domain_text, domain_file)  # the corpus's own rules build the views
    views = CorpusWorld.of([recording], verbs, domain).views(recording, records, clips_file)
    agents = {a.id: a.agent for a in recording.actions}
    moments = {clip: clip_moments(view) for clip, view in views.items()}
    twins = recording_twins(recording, domain)
    judged: list[tuple[str, list[Need] | None, Unmet | None]] = []
    times: set[float] = set()
    undrawn = frozenset(parse_look(look_text, look_file).undrawn_verbs)
    for clip, program in payload["questions"]:
        # a clip the clips file lacks is refused later, when the benchmark's clips are listed
        needs = evidence(program, views[clip], agents, undrawn) if clip in views else None
        twin = named_twin(needs, twins)  # dropped whatever the masks show
        judged.append((clip, needs, twin))
        if twin is not None:
            continue
        for need in needs or ():
            if not need.undrawn:
                times.update(moments[clip].get(need.action) or moments[clip][None])
    if not times:  # nothing to look for in masks: look-alikes, actions not acted out
        return [twin or _undrawn(needs) for _, needs, twin in judged], 0
    look = parse_look(look_text, look_file)
    shown = {name for v in views.values() for name in shipped_views(recording, v.clip.agent)}
    kinds = [FIRST] if shown - {THIRD} else []
    kinds += [THIRD] if THIRD in shown else []
    statistics, fresh = cached_mask_statistics(
        recording,
        recording_json,
        domain,
        look,
        look_text,
        sorted(times),
        size,
        kinds,
        Path(cache) if cache is not None else None,
    )
    found: list[Unmet | None] = []
    for clip, needs, twin in judged:
        if twin is not None or needs is None:
            # needs None: no answer here, which `taskqa check` and the oracle say
            found.append(twin)
            continue
        asked = views[clip].clip.agent
        names = shipped_views(recording, asked)
        allowed = [(n, limits.room if n == THIRD else limits.first_person) for n in names]
        found.append(unmet(needs, statistics, moments[clip], asked, allowed))
    return found, len(statistics.times) * len(statistics.views) if fresh else 0


def _undrawn(needs: Sequence[Need] | None) -> Unmet | None:
    return next(((need, ()) for need in needs or () if need.undrawn), None)


# --- a whole candidates file -------------------------------------------------------------------
@dataclass
class Grounding:
    """What the check did: the candidates file to balance, and counts for the manifest, the
    diagnostics and the build report."""

    path: Path
    checked: int = 0
    kept: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    note: str | None = None  # why the check did not run, when it did not
    seconds: float = 0.0  # wall time (shown while building; not written: files stay identical)
    frames: int = 0  # mask frames drawn by this run (0 where the cache had them all)
    size: int = SIZE
    thresholds: Thresholds = field(default_factory=Thresholds)

    def rejected(self, generation: Mapping[str, int]) -> dict[str, int]:
        """Generation's rejections by reason with the check's added, sorted by reason."""
        merged = Counter(generation)
        merged.update(self.dropped)
        return dict(sorted(merged.items()))

    def summary(self) -> dict[str, Any]:
        """The manifest's and diagnostics' record of the check (no timings: byte-identical)."""
        if self.note is not None:
            return {"ran": False, "note": self.note}
        return {
            "ran": True,
            "checked": self.checked,
            "kept": self.kept,
            "dropped": dict(sorted(self.dropped.items(), key=lambda kv: (-kv[1], kv[0]))),
            "mask_size": self.size,
            "first_person_share": self.thresholds.first_person,
            "room_share": self.thresholds.room,
        }


def skip_reason(recordings: Sequence[Recording]) -> str | None:
    """Why the check cannot run on these recordings (None: it can)."""
    if not recordings or any(r.source is not Source.SIMULATED for r in recordings):
        return "grounding check skipped: not a simulated corpus (no masks to draw)"
    try:
        from taskqa.render.engine import quiet_pybullet

        quiet_pybullet()
    except Exception as error:  # an import that fails in C code can raise anything
        return f"grounding check skipped: the renderer cannot start ({type(error).__name__})"
    return None


def ground_candidates(
    world: CorpusWorld,
    candidates_file: Path,
    clips: Mapping[str, ClipRecord],
    scratch: Path,
    enabled: bool = True,
    execution: Execution | None = None,
    journal: Path | None = None,
    say: Callable[[str], None] | None = None,
    cache: Path | None = None,
    thresholds: Thresholds | None = None,
    size: int = SIZE,
) -> Grounding:
    """Drop the candidates of ``candidates_file`` whose evidence is off screen; the kept lines,
    byte for byte and in file order, go to ``scratch`` (which may be ``candidates_file``
    itself). ``cache`` is the folder of cached mask statistics (default: the taskqa cache's
    ``grounding``); beside ``journal`` (the build's journal folder) a journal records finished
    recordings for a resumed run."""
    thresholds = thresholds or Thresholds()
    result = Grounding(candidates_file, size=size, thresholds=thresholds)
    if not enabled:
        result.note = "grounding check off (--no-grounding)"
        return result
    note = skip_reason(world.recordings)
    if note is not None:
        from taskqa.terminal import errors

        result.note = note
        errors.print(f"{note}; building without it", highlight=False, markup=False)
        return result
    started = time.perf_counter()
    work = shards_of(world, candidates_file, clips, cache, size, thresholds)
    context, order, items, owners = work.context, work.order, work.items, work.owners
    labels = [f"{index} (recording {r})" for index, r in enumerate(order)]
    execution = execution or Execution()
    shards = None
    if journal is not None:
        settings = json.dumps([*context[:5], size, repr(thresholds)])
        run = fingerprint("grounding", settings, *items)
        beside = journal.with_name(f"{journal.name}-grounding")  # not generation's own
        shards = ShardJournal(beside, run, len(items), execution.resume)
    reasons: dict[str, list[str | None]] = {}
    with execution.open() as executor:
        results = run_shards(executor, ground_recording, context, items, labels, shards)
        for done, (recording, answer) in enumerate(zip(order, results, strict=True), 1):
            reasons[recording] = answer["reasons"]
            result.frames += int(answer["drawn"])
            if say is not None:
                rate = done / max(time.perf_counter() - started, 1e-9)
                say(f"grounding: {done:,}/{len(order):,} recordings ({rate:.1f}/s)")
    result.path = scratch
    _write_kept(candidates_file, scratch, owners, reasons, result)
    if shards is not None:
        shards.finish()
    result.seconds = time.perf_counter() - started
    return result


@dataclass(frozen=True)
class Shards:
    """The check's work: the shared context, and one item per recording with questions (in
    first-seen order), plus the recording of every question line."""

    context: GroundingContext
    order: list[str]
    items: list[str]
    owners: list[str]


def shards_of(
    world: CorpusWorld,
    candidates_file: Path,
    clips: Mapping[str, ClipRecord],
    cache: Path | None = None,
    size: int = SIZE,
    thresholds: Thresholds | None = None,
) -> Shards:
    """What ``ground_candidates`` runs (``cache`` None: the taskqa cache's ``grounding``)."""
    from taskqa.household.look_spec import look_source, parse_look

    domain = world.domain
    if domain is None:  # simulated recordings of a world that is not there to draw
        message = "the recordings' domain is not known (the corpus carries no domain.yaml)"
        raise InvalidInputError([Problem(str(candidates_file), "", message)])
    look_text, look_file = look_source(None)
    parse_look(look_text, look_file)  # a broken look fails here, once, not in every shard
    by_id = world.by_id
    owners, asked = _questions_by_recording(candidates_file)
    order = list(asked)
    unknown = [r for r in order if r not in by_id]
    if unknown:
        message = f"questions of recording {unknown[0]!r}, which the corpus does not have"
        raise InvalidInputError([Problem(str(candidates_file), "", message)])
    folder = cache if cache is not None else _default_cache()
    context: GroundingContext = (
        domain.source_text,
        domain.file_name,
        look_text,
        look_file,
        dict(world.verb_templates) if world.verb_templates is not None else None,
        "clips.jsonl",
        size,
        thresholds or Thresholds(),
        str(folder) if folder is not None else None,
    )
    items = [_item(by_id[r], asked[r], clips) for r in order]
    return Shards(context, order, items, owners)


def _default_cache() -> Path | None:
    try:
        from taskqa.data.cache import cache_dir

        return cache_dir() / "grounding"
    except Exception:  # no cache folder on this machine: draw every time
        return None


def _questions_by_recording(path: Path) -> tuple[list[str], dict[str, list[list[str]]]]:
    """The recording of every question line, in file order, and each recording's questions
    as [clip, program] pairs, recordings in first-seen order."""
    owners: list[str] = []
    asked: dict[str, list[list[str]]] = {}
    for index, line in _lines(path):
        try:
            record = json.loads(line)
        except ValueError:
            record = parse_json(line, path, [index], line=index + 1)  # says why, or reads it
        if not isinstance(record, dict) or "program" not in record:
            owners.append("")  # reading the candidates for balancing says what is wrong
            continue
        recording = str(record.get("recording"))
        owners.append(recording)
        asked.setdefault(recording, []).append([str(record.get("clip")), str(record["program"])])
    return owners, asked


def _lines(path: Path) -> Iterator[tuple[int, bytes]]:
    with path.open("rb") as stream:
        for index, line in enumerate(stream):
            if line.strip():
                yield index, line


def _item(recording: Recording, questions: list[list[str]], clips: Mapping[str, ClipRecord]) -> str:
    wanted = sorted({clip for clip, _ in questions})
    records = [clips[c].model_dump(mode="json") for c in wanted if c in clips]
    return json.dumps(
        {"recording": recording.model_dump_json(), "clips": records, "questions": questions},
        ensure_ascii=False,
    )


def _write_kept(
    source: Path,
    target: Path,
    owners: Sequence[str],
    reasons: Mapping[str, list[str | None]],
    result: Grounding,
) -> None:
    """Copy the kept lines of ``source`` to ``target`` (streamed, then moved into place, so
    ``target`` may be ``source``) and count the dropped ones by reason; ``owners`` is the
    recording of each line."""
    position: Counter[str] = Counter()
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.grounded")
    with temporary.open("wb") as stream:
        for (_, line), recording in zip(_lines(source), owners, strict=True):
            verdicts = reasons.get(recording, [])
            k = position[recording]
            position[recording] += 1
            reason = verdicts[k] if k < len(verdicts) else None
            result.checked += 1
            if reason is None:
                stream.write(line if line.endswith(b"\n") else line + b"\n")
                result.kept += 1
            else:
                result.dropped[reason] += 1
    os.replace(temporary, target)
