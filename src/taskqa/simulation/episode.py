"""Simulating one episode: who does which step when, and what each action changes.

Time runs in whole frames so that every timestamp sits on the domain's frame grid. A step is
claimed by one agent at a time and locks every object it touches until it ends; that is what
keeps before/after annotations consistent when two agents act at once.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from taskqa.model import ActionSlots, Attribute, ErrorTag, Outcome
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.domain import (
    PLACE,
    Domain,
    GroundAction,
    Interruption,
    Step,
    Task,
    ground_action,
)
from taskqa.simulation.routes import routed, routed_objects
from taskqa.simulation.rules import attribute_named
from taskqa.simulation.world import WorldState

ERROR_TAGS = {
    "preparation": ErrorTag.PREPARATION,
    "measurement": ErrorTag.MEASUREMENT,
    "timing": ErrorTag.TIMING,
    "technique": ErrorTag.TECHNIQUE,
    "temperature": ErrorTag.TEMPERATURE,
}
MISSING = "missing"
SKIPPED_TEXT = "Skipped this step"
MAX_TRIES = 3  # a failed action is tried again; the last try always works


class EpisodeStuck(Exception):
    """No agent can make progress; the caller retries the episode with a new draw."""


@dataclass(frozen=True)
class ObjectView:
    """What the simulator knows about one object at one moment."""

    attributes: dict[Attribute, str]
    place: str | None
    relation: str | None
    enclosed: bool
    zone: str | None


@dataclass
class ActionRecord:
    agent: str
    start: int
    end: int
    action: GroundAction
    acting: str
    zone: str
    previous_zone: str
    task: str | None
    step: str | None
    before: dict[str, ObjectView]
    after: dict[str, ObjectView]
    outcome: Outcome = Outcome.DONE


@dataclass
class StepRecord:
    task: str
    step: Step
    agent: str | None = None
    start: int | None = None
    end: int | None = None
    errors: list[tuple[ErrorTag, str]] = field(default_factory=list)
    modified: str | None = None


@dataclass
class AgentClock:
    id: str
    index: int
    tasks: list[str]
    zone: str
    free_at: int = 0


@dataclass
class EpisodePlan:
    kind: str
    room: str
    tasks: list[str]
    agents: list[AgentClock]
    step_errors: dict[tuple[str, str], str]
    with_errors: bool
    bound: dict[str, Task] = field(default_factory=dict)  # each task with its roles bound
    start: dict[str, dict[Attribute, str]] = field(default_factory=dict)  # objects present
    places: dict[str, str] = field(default_factory=dict)  # where drawn things start, if drawn


@dataclass(frozen=True)
class InterruptionRecord:
    """One interruption done: by whom, from when to when, which of the domain's entries."""

    agent: str
    start: int
    end: int
    index: int
    actions: tuple[str, ...]


@dataclass
class EpisodeTrace:
    plan: EpisodePlan
    actions: list[ActionRecord]
    steps: list[StepRecord]
    initial_zones: dict[str, str]
    initial: dict[str, ObjectView] = field(default_factory=dict)
    interruptions: list[InterruptionRecord] = field(default_factory=list)


def plan_episode(rng: random.Random, domain: Domain, config: SimulationConfig) -> EpisodePlan:
    kind = _weighted(rng, config.episode_types)
    room = _weighted(rng, config.rooms)
    n_agents, n_tasks = int(kind[0]), int(kind[2])
    bound = _pick_tasks(rng, domain, room, n_tasks, config)
    tasks = list(bound)
    start, places = _initial_world(rng, domain, room, config)
    kind = f"{n_agents}x{len(tasks)}"  # a task without a compatible partner runs alone
    zones = list(domain.spec.rooms[room].zones)
    ids = ["P1", "P2"][:n_agents]
    if n_agents == 2 and len(tasks) == 2:
        pools = [[tasks[0]], [tasks[1]]]
    else:
        pools = [list(tasks) for _ in ids]
    agents = [
        AgentClock(id=agent_id, index=i, tasks=pools[i], zone=rng.choice(zones))
        for i, agent_id in enumerate(ids)
    ]
    with_errors = rng.random() < config.error_episode_rate
    step_errors = _plan_step_errors(rng, domain, tasks, config) if with_errors else {}
    return EpisodePlan(kind, room, tasks, agents, step_errors, with_errors, bound, start, places)


def _weighted(rng: random.Random, weights: dict[str, float]) -> str:
    names = sorted(weights)
    return rng.choices(names, weights=[weights[n] for n in names])[0]


def _pick_tasks(
    rng: random.Random, domain: Domain, room: str, count: int, config: SimulationConfig
) -> dict[str, Task]:
    """One or two tasks, each with its roles bound to objects for this episode."""
    first = rng.choice(sorted(domain.tasks_in(room)))
    chosen = {first: _bind_roles(rng, domain, domain.tasks[first], set(), config)}
    if count == 1:
        return chosen
    # Two tasks in one episode must not fight over the same carried things.
    taken = domain.task_objects(chosen[first])
    compatible = [
        t
        for t in sorted(domain.tasks_in(room))
        if t != first and _role_options(domain, domain.tasks[t], taken) is not None
    ]
    if compatible:
        second = rng.choice(compatible)
        chosen[second] = _bind_roles(rng, domain, domain.tasks[second], taken, config)
    return chosen


def _role_options(domain: Domain, task: Task, taken: set[str]) -> dict[str, list[str]] | None:
    """Objects free for each role of ``task`` besides ``taken``; None when the task clashes."""
    if domain.task_objects(task) & taken:  # role names are not objects, so these are fixed
        return None
    options = {role: [o for o in objects if o not in taken] for role, objects in task.roles.items()}
    return None if any(not free for free in options.values()) else options


def _bind_roles(
    rng: random.Random, domain: Domain, task: Task, taken: set[str], config: SimulationConfig
) -> Task:
    options = _role_options(domain, task, taken)
    if options is None:
        raise ValueError(f"task {task.name!r} clashes with objects {sorted(taken)}")
    binding = {
        role: rng.choice(free) if config.vary_roles else free[0]
        for role, free in sorted(options.items())
    }
    return domain.bound_task(task.name, binding)


def _initial_world(
    rng: random.Random, domain: Domain, room: str, config: SimulationConfig
) -> tuple[dict[str, dict[Attribute, str]], dict[str, str]]:
    """Which objects are present, the state each starts in and where the things with a
    ``vary: {at: ...}`` start, drawn for one episode."""
    start: dict[str, dict[Attribute, str]] = {}
    places: dict[str, str] = {}
    for name in domain.objects_in(room):
        spec = domain.spec.objects[name]
        if spec.distractor and rng.random() >= config.distractor_rate:
            continue
        attributes = domain.initial_attributes(name)
        for key, values in spec.vary.items():
            if rng.random() < config.vary_initial_rate:
                if key == PLACE:
                    places[name] = rng.choice(values)
                else:
                    attributes[attribute_named(key)] = rng.choice(values)
        start[name] = attributes
    return start, places


def _plan_step_errors(
    rng: random.Random, domain: Domain, tasks: list[str], config: SimulationConfig
) -> dict[tuple[str, str], str]:
    planned: dict[tuple[str, str], str] = {}
    for task in tasks:
        for step in domain.tasks[task].steps.values():  # step ids and errors do not bind roles
            options = sorted(step.errors) + ([MISSING] if step.skippable else [])
            if options and rng.random() < config.step_error_rate:
                planned[(task, step.id)] = rng.choice(options)
    return planned


class EpisodeSimulator:
    def __init__(
        self, domain: Domain, config: SimulationConfig, plan: EpisodePlan, rng: random.Random
    ) -> None:
        self.domain = domain
        self.config = config
        self.plan = plan
        self.rng = rng
        self.tasks = plan.bound
        agent_ids = [a.id for a in plan.agents]
        self.state = WorldState(
            domain, plan.room, agent_ids, start=plan.start or None, places=plan.places
        )
        self.initial = {name: self._view(name) for name in self.state.attributes}
        self.locks: dict[str, int] = {}
        self.actions: list[ActionRecord] = []
        self.steps: dict[tuple[str, str], StepRecord] = {
            (task, step_id): StepRecord(task, step)
            for task in plan.tasks
            for step_id, step in self.tasks[task].steps.items()
        }
        self.finished: set[tuple[str, str]] = set()
        for key, kind in plan.step_errors.items():
            if kind == MISSING:
                self.steps[key].errors.append((ErrorTag.MISSING_STEP, SKIPPED_TEXT))
                self.steps[key].modified = SKIPPED_TEXT
                self.finished.add(key)  # a skipped step no longer holds up its successors
        self.claimed: set[tuple[str, str]] = set(self.finished)
        self.usable_by_tasks = {o for t in plan.tasks for o in domain.task_objects(self.tasks[t])}
        # the other person deals with what one left only where there is another person
        self.interruptions = (
            [i for i in domain.interruptions if i.room == plan.room] if len(agent_ids) > 1 else []
        )
        self.interrupted: list[InterruptionRecord] = []
        self.touched_by: dict[str, tuple[int, str]] = {}  # object -> (end, agent) of last touch

    def run(self) -> EpisodeTrace:
        initial_zones = {a.id: a.zone for a in self.plan.agents}
        idle_rounds = 0
        while True:
            active = [a for a in self.plan.agents if self._remaining(a)]
            if not active:
                break
            agent = min(active, key=lambda a: (a.free_at, a.index))
            if self._act(agent):
                idle_rounds = 0
                continue
            idle_rounds += 1
            if idle_rounds > 4 * len(self.plan.agents) + 8:
                raise EpisodeStuck(f"no agent can continue at frame {agent.free_at}")
            agent.free_at = self._next_event_after(agent.free_at)
        ordered = sorted(self.steps.values(), key=lambda s: (s.start is None, s.start or 0))
        return EpisodeTrace(
            self.plan, self.actions, ordered, initial_zones, self.initial, self.interrupted
        )

    def _remaining(self, agent: AgentClock) -> bool:
        return any(
            (task, step) not in self.claimed
            for task in agent.tasks
            for step in self.tasks[task].steps
        )

    def _next_event_after(self, now: int) -> int:
        future = [t for t in self.locks.values() if t > now]
        future += [a.free_at for a in self.plan.agents if a.free_at > now]
        return min(future) if future else now + round(self.domain.fps)

    def _act(self, agent: AgentClock) -> bool:
        now = agent.free_at
        if self._interrupt(agent):
            return True
        open_steps = [
            (task, step)
            for task in agent.tasks
            for step in self.tasks[task].steps.values()
            if (task, step.id) not in self.claimed and self._unlocked(self._objects_now(step), now)
        ]
        ready = [(t, s) for t, s in open_steps if self._predecessors_done(t, s)]
        chosen = self._choose(agent, ready, open_steps)
        if chosen is None:
            taken = self._take_over(agent)
            if taken is None:
                return False
            chosen = (*taken, [])
        task, step, early = chosen
        if self.rng.random() < self.config.detour_rate:
            self._detour(agent)
        self._perform(agent, task, step, early)
        return True

    def _choose(
        self,
        agent: AgentClock,
        ready: list[tuple[str, Step]],
        open_steps: list[tuple[str, Step]],
    ) -> tuple[str, Step, list[str]] | None:
        if self.plan.with_errors and self.rng.random() < self.config.order_error_rate:
            early = [
                (t, s)
                for t, s in open_steps
                # a step done only where needed ("rinse the mug") waits for what shows the need
                if s.when is None
                and not self._predecessors_done(t, s)
                and self._early_step_harmless(agent, t, s)
            ]
            if early:
                task, step = self.rng.choice(early)
                pending = [b for b in step.after if (task, b) not in self.finished]
                return task, step, pending
        possible = [(t, s) for t, s in ready if self._possible(agent, s)]
        if not possible:
            return None
        task, step = self.rng.choice(possible)
        return task, step, []

    def _early_step_harmless(self, agent: AgentClock, task: str, step: Step) -> bool:
        """Whether doing ``step`` now still lets one agent finish the task in some order.

        A wrong-order error should look like a person's slip, not make the rest impossible.
        """
        scratch = self.state.copy()
        if not _run_step(scratch, self.domain, step, agent.id):
            return False
        done = {s for t, s in self.finished if t == task} | {step.id}
        left = {
            s.id: s
            for s in self.tasks[task].steps.values()
            if s.id not in done and (task, s.id) not in self.claimed
        }
        progress = True
        while left and progress:
            progress = False
            for step_id, candidate in sorted(left.items()):
                if all(b in done for b in candidate.after) and _run_step(
                    scratch, self.domain, candidate, agent.id
                ):
                    done.add(step_id)
                    del left[step_id]
                    progress = True
        return not left

    def _objects_now(self, step: Step) -> set[str]:
        """What ``step`` would touch if begun now, taking things from where they are."""
        return routed_objects(self.state, self.domain, step.actions)

    def _predecessors_done(self, task: str, step: Step) -> bool:
        return all((task, before) in self.finished for before in step.after)

    def _unlocked(self, objects: set[str], now: int) -> bool:
        return all(self.locks.get(o, 0) <= now for o in objects)

    def _possible(self, agent: AgentClock, step: Step) -> bool:
        return _run_step(self.state.copy(), self.domain, step, agent.id)

    def _perform(self, agent: AgentClock, task: str, step: Step, early: list[str]) -> None:
        key = (task, step.id)
        record = self.steps[key]
        planned = self.plan.step_errors.get(key)
        stretch = 1.0
        if planned is not None and planned != MISSING:
            description = step.errors[planned]
            record.errors.append((ERROR_TAGS[planned], description))
            record.modified = description
            if planned == "timing":
                stretch = self.rng.choice((0.3, 2.5))
        self.claimed.add(key)
        start, done_before = agent.free_at, len(self.actions)
        actions = routed(self.state, self.domain, step.actions)  # from where things really are
        if not step.wanted(self.state.attributes, self.state.location):
            actions = ()  # already as the task wants (a clean cup): nothing to do
        for index, action in enumerate(actions):
            schema = self.domain.schemas[action.verb]
            if self.state.violated(schema, action.slots, agent.id) and self.state.already_done(
                schema, action.slots, agent.id
            ):
                continue  # already as the step wants it: the person skips it
            if self._leaves_out(agent, action, actions[index + 1 :]):
                continue
            for attempt in range(MAX_TRIES):
                outcome = self._outcome(agent, action, actions[index + 1 :], attempt)
                self._do(agent, action, task, step.id, stretch, outcome)
                if outcome is not Outcome.FAILED:
                    break
        # A step whose every action was already done takes no time: the person saw it done.
        end = self.actions[-1].end if len(self.actions) > done_before else start
        if early and end > start:  # a step found already done is no slip of order
            texts = ", ".join(self.tasks[task].steps[b].text.lower() for b in early)
            record.errors.append((ErrorTag.ORDER, f"Done before: {texts}"))
        record.agent, record.start, record.end = agent.id, start, end
        for obj in step.objects() | {o for a in actions for o in a.slots.objects()}:
            self.locks[obj] = agent.free_at
        self.finished.add(key)

    def _leaves_out(
        self, agent: AgentClock, action: GroundAction, rest: tuple[GroundAction, ...]
    ) -> bool:
        """Whether the person skips an optional action (leaves the cupboard open), which the
        rest of the step must allow."""
        if not action.optional or self.rng.random() >= self.config.leave_out_rate:
            return False
        return _run_actions(self.state.copy(), self.domain, rest, agent.id)

    def _outcome(
        self, agent: AgentClock, action: GroundAction, rest: tuple[GroundAction, ...], attempt: int
    ) -> Outcome:
        """Done, failed (retried) or partial, as the schema allows; partial only where the rest
        of the step, and every step not yet begun, can still be done afterwards."""
        schema = self.domain.schemas[action.verb]
        if (
            schema.can_fail
            and attempt < MAX_TRIES - 1
            and self.rng.random() < self.config.failure_rate
        ):
            return Outcome.FAILED
        if schema.partial is not None and self.rng.random() < self.config.partial_rate:
            scratch = self.state.copy()
            scratch.apply(schema, action.slots, agent.id, Outcome.PARTIAL)
            # and the episode's other steps too: a cup washed but still dirty takes no juice
            if _run_actions(scratch, self.domain, rest, agent.id) and self._steps_still_possible(
                scratch
            ):
                return Outcome.PARTIAL
        return Outcome.DONE

    def _take_over(self, agent: AgentClock) -> tuple[str, Step] | None:
        """With nothing else to do, ask the other person for what they hold and do their step.

        The giver puts the things down at the room's hand-over spot and the taker picks them
        up, so a shared task changes hands mid-way, as in LEMMA's two-person recordings.
        """
        spot = self.domain.spec.rooms[self.plan.room].handover
        options = self._take_over_options(agent) if spot is not None else []
        if spot is None or not options:
            return None
        giver_index, task, step_id, needed = self.rng.choice(options)
        giver = self.plan.agents[giver_index]
        step = self.tasks[task].steps[step_id]
        giver.free_at = max(
            [giver.free_at, self.locks.get(spot, 0), *(self.locks.get(o, 0) for o in needed)]
        )
        for obj in needed:
            self._do(giver, ground_action(f"Put [{obj}] to [{spot}]"), task, step.id, 1.0)
        agent.free_at = max(agent.free_at, giver.free_at)
        for obj in needed:
            self._do(agent, ground_action(f"Get [{obj}] from [{spot}]"), task, step.id, 1.0)
        for obj in (*needed, spot):
            self.locks[obj] = agent.free_at
        return task, step

    def _take_over_options(self, agent: AgentClock) -> list[tuple[int, str, str, tuple[str, ...]]]:
        """(giver, task, step, things to pass) for each step ``agent`` could take over."""
        options = []
        for giver in self.plan.agents:
            held = {o for o, place in self.state.location.items() if place == giver.id}
            if giver is agent or not held:
                continue
            for task in sorted(set(agent.tasks) & set(giver.tasks)):
                for step in self.tasks[task].steps.values():
                    if not step.wanted(self.state.attributes, self.state.location):
                        continue  # a clean cup's rinsing is nothing to hand over for
                    needed = step.objects() & held
                    if needed and self._can_take_over(agent, task, step, needed):
                        options.append((giver.index, task, step.id, tuple(sorted(needed))))
        return options

    def _can_take_over(self, agent: AgentClock, task: str, step: Step, needed: set[str]) -> bool:
        if (task, step.id) in self.claimed or not self._predecessors_done(task, step):
            return False
        if not self._unlocked(self._objects_now(step) - needed, agent.free_at):
            return False
        scratch = self.state.copy()
        for obj in needed:
            scratch.location[obj] = agent.id
        return _run_step(scratch, self.domain, step, agent.id)

    def _detour(self, agent: AgentClock) -> None:
        """An unnecessary excursion that leaves the world as it found it."""
        now = agent.free_at
        candidates = []
        for obj in self.state.attributes:
            if obj in self.usable_by_tasks or not self._unlocked({obj}, now):
                continue
            spec = self.domain.spec.objects[obj]
            place = self.state.location.get(obj)
            if spec.fixture and self.state.attributes[obj].get(Attribute.OPENNESS) == "closed":
                candidates.append((f"Open [{obj}]", f"Close [{obj}]"))
            elif (
                place is not None
                and place not in self.state.agents
                and not self.state.enclosed(obj)
                and self._unlocked({place}, now)
            ):
                candidates.append((f"Get [{obj}] from [{place}]", f"Put [{obj}] to [{place}]"))
        if not candidates:
            return
        for text in self.rng.choice(sorted(candidates)):
            action = ground_action(text)
            schema = self.domain.schemas[action.verb]
            if self.state.violated(schema, action.slots, agent.id):
                return
            self._do(agent, action, None, None, 1.0)
            for obj in action.slots.objects():
                self.locks[obj] = agent.free_at

    def _interrupt(self, agent: AgentClock) -> bool:
        """Sometimes first deal with a thing the other person (or the start) left: one of the
        domain's ``interruptions``, only where every remaining step of both stays possible
        (they may take another route: open the fridge again, take the jar from the cupboard)."""
        if len(self.interrupted) >= self.config.max_interruptions:
            return False
        applicable = [i for i in self.interruptions if self._applies(i, agent)]
        if not applicable or self.rng.random() >= self.config.interruption_rate:
            return False
        self.rng.shuffle(applicable)
        for interruption in applicable:
            actions = self._harmless_actions(interruption, agent)
            if actions:
                break
        else:
            return False
        start = agent.free_at
        for action in actions:
            self._do(agent, action, None, None, 1.0)
        for obj in interruption.objects():
            self.locks[obj] = agent.free_at
        texts = tuple(action.text for action in actions)
        end = self.actions[-1].end
        self.interrupted.append(InterruptionRecord(agent.id, start, end, interruption.index, texts))
        return True

    def _applies(self, interruption: Interruption, agent: AgentClock) -> bool:
        """Its condition holds, its things are free, the thing was last touched by someone
        else (or left so from the start), and any carried thing it touches is one no remaining
        step uses before taking it from where it is."""
        objects = interruption.objects()
        if not objects <= set(self.state.attributes) or not self._unlocked(objects, agent.free_at):
            return False
        if not interruption.when.holds(self.state.attributes, self.state.location):
            return False
        if self.touched_by.get(interruption.when.obj, (0, ""))[1] == agent.id:
            return False
        carried = {o for o in objects if not self.domain.spec.objects[o].fixture}
        return all(self._taken_first(obj) for obj in carried)

    def _taken_first(self, obj: str) -> bool:
        """Whether every remaining step that names ``obj`` first takes it from its holder, or
        comes after a remaining step that does: moving it then only changes where it is taken
        from (never a pour from a milk carton shut in the fridge)."""
        for task in self.plan.tasks:
            steps = self.tasks[task].steps
            left = [step_id for step_id in steps if (task, step_id) not in self.claimed]
            naming = {
                step_id: [a for a in steps[step_id].actions if obj in a.slots.objects()]
                for step_id in left
            }
            takes = {
                step_id
                for step_id, actions in naming.items()
                if actions and actions[0].slots.patient == [obj] and actions[0].slots.source
            }
            for step_id, actions in naming.items():
                if actions and step_id not in takes and not _ancestors(steps, step_id) & takes:
                    return False
        return True

    def _harmless_actions(
        self, interruption: Interruption, agent: AgentClock
    ) -> list[GroundAction]:
        """The interruption's actions that change something (one already as it wants is
        skipped), tried on a scratch world; empty where one cannot run or a remaining step of
        either person would become impossible."""
        scratch = self.state.copy()
        done: list[GroundAction] = []
        for action in interruption.actions:
            schema = self.domain.schemas[action.verb]
            if scratch.violated(schema, action.slots, agent.id):
                if scratch.already_done(schema, action.slots, agent.id):
                    continue
                return []
            scratch.apply(schema, action.slots, agent.id)
            done.append(action)
        return done if done and self._steps_still_possible(scratch) else []

    def _steps_still_possible(self, scratch: WorldState) -> bool:
        """Whether every unclaimed step of the episode can still be done from ``scratch`` in
        some order that respects ``after``, each by a person whose task it is."""
        done = set(self.claimed)
        left = {
            (task, step.id): step
            for task in self.plan.tasks
            for step in self.tasks[task].steps.values()
            if (task, step.id) not in done
        }
        owners = {t: [a.id for a in self.plan.agents if t in a.tasks] for t in self.plan.tasks}
        progress = True
        while left and progress:
            progress = False
            for (task, step_id), step in sorted(left.items()):
                if not all((task, before) in done for before in step.after):
                    continue
                for who in owners[task]:
                    trial = scratch.copy()
                    if _run_step(trial, self.domain, step, who):
                        scratch = trial
                        done.add((task, step_id))
                        del left[(task, step_id)]
                        progress = True
                        break
        return not left

    def _do(
        self,
        agent: AgentClock,
        action: GroundAction,
        task: str | None,
        step: str | None,
        stretch: float,
        outcome: Outcome = Outcome.DONE,
    ) -> None:
        schema = self.domain.schemas[action.verb]
        objects = action.slots.objects()
        zone = self._action_zone(action.slots, agent)
        before = {o: self._view(o) for o in objects}
        self.state.apply(schema, action.slots, agent.id, outcome)
        for obj in objects:
            self.touched_by[obj] = max(self.touched_by.get(obj, (0, "")), (agent.free_at, agent.id))
        after = {o: self._view(o) for o in objects}
        low, high = schema.duration
        frames = max(1, round(self.rng.uniform(low, high) * stretch * self.domain.fps))
        start = agent.free_at
        self.actions.append(
            ActionRecord(
                agent=agent.id,
                start=start,
                end=start + frames,
                action=action,
                acting=schema.acting,
                zone=zone,
                previous_zone=agent.zone,
                task=task,
                step=step,
                before=before,
                after=after,
                outcome=outcome,
            )
        )
        gap_low, gap_high = self.config.gap_seconds
        agent.free_at = (
            start + frames + round(self.rng.uniform(gap_low, gap_high) * self.domain.fps)
        )
        agent.zone = zone

    def _action_zone(self, slots: ActionSlots, agent: AgentClock) -> str:
        for obj in (*slots.destination, *slots.source, *slots.patient, *slots.instrument):
            zone = self.state.zone_of(obj)
            if zone is not None:
                return zone
        return agent.zone

    def _view(self, obj: str) -> ObjectView:
        return object_view(self.state, obj)


def object_view(state: WorldState, obj: str) -> ObjectView:
    """What ``state`` says of ``obj``: its attributes, where it is, whether it is shut away."""
    relation = state.relation_of(obj)
    return ObjectView(
        attributes=dict(state.attributes[obj]),
        place=relation.object if relation else None,
        relation=relation.relation if relation else None,
        enclosed=state.enclosed(obj),
        zone=state.zone_of(obj),
    )


def _ancestors(steps: dict[str, Step], step_id: str) -> set[str]:
    """The steps that must come before ``step_id``, directly or through others."""
    found: set[str] = set()
    todo = list(steps[step_id].after)
    while todo:
        current = todo.pop()
        if current not in found:
            found.add(current)
            todo.extend(steps[current].after)
    return found


def _run_step(state: WorldState, domain: Domain, step: Step, agent: str) -> bool:
    """Apply ``step`` to ``state`` if every action's preconditions hold in turn, taking each
    thing from where it really is (``routed``); a step its ``when`` leaves out changes nothing."""
    if not step.wanted(state.attributes, state.location):
        return True
    return _run_actions(state, domain, routed(state, domain, step.actions), agent)


def _run_actions(
    state: WorldState, domain: Domain, actions: tuple[GroundAction, ...], agent: str
) -> bool:
    """Apply ``actions`` in turn; one that cannot run but whose effects already hold is
    skipped (the world started that way), any other that cannot run makes the whole fail."""
    for action in actions:
        schema = domain.schemas[action.verb]
        if state.violated(schema, action.slots, agent):
            if state.already_done(schema, action.slots, agent):
                continue
            return False
        state.apply(schema, action.slots, agent)
    return True
