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
from taskqa.simulation.domain import Domain, GroundAction, Step, Task, ground_action
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


@dataclass
class EpisodeTrace:
    plan: EpisodePlan
    actions: list[ActionRecord]
    steps: list[StepRecord]
    initial_zones: dict[str, str]
    initial: dict[str, ObjectView] = field(default_factory=dict)


def plan_episode(rng: random.Random, domain: Domain, config: SimulationConfig) -> EpisodePlan:
    kind = _weighted(rng, config.episode_types)
    room = _weighted(rng, config.rooms)
    n_agents, n_tasks = int(kind[0]), int(kind[2])
    bound = _pick_tasks(rng, domain, room, n_tasks, config)
    tasks = list(bound)
    start = _initial_world(rng, domain, room, config)
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
    return EpisodePlan(kind, room, tasks, agents, step_errors, with_errors, bound, start)


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
) -> dict[str, dict[Attribute, str]]:
    """Which objects are present and the state each starts in, drawn for one episode."""
    start: dict[str, dict[Attribute, str]] = {}
    for name in domain.objects_in(room):
        spec = domain.spec.objects[name]
        if spec.distractor and rng.random() >= config.distractor_rate:
            continue
        attributes = domain.initial_attributes(name)
        for key, values in spec.vary.items():
            if rng.random() < config.vary_initial_rate:
                attributes[attribute_named(key)] = rng.choice(values)
        start[name] = attributes
    return start


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
        self.state = WorldState(domain, plan.room, agent_ids, start=plan.start or None)
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
        return EpisodeTrace(self.plan, self.actions, ordered, initial_zones, self.initial)

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
        open_steps = [
            (task, step)
            for task in agent.tasks
            for step in self.tasks[task].steps.values()
            if (task, step.id) not in self.claimed and self._unlocked(step.objects(), now)
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
                if not self._predecessors_done(t, s) and self._early_step_harmless(agent, t, s)
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
        if early:
            texts = ", ".join(self.tasks[task].steps[b].text.lower() for b in early)
            record.errors.append((ErrorTag.ORDER, f"Done before: {texts}"))
        self.claimed.add(key)
        start, done_before = agent.free_at, len(self.actions)
        for index, action in enumerate(step.actions):
            schema = self.domain.schemas[action.verb]
            if self.state.violated(schema, action.slots, agent.id) and self.state.already_done(
                schema, action.slots, agent.id
            ):
                continue  # already as the step wants it: the person skips it
            if self._leaves_out(agent, action, step.actions[index + 1 :]):
                continue
            for attempt in range(MAX_TRIES):
                outcome = self._outcome(agent, action, step.actions[index + 1 :], attempt)
                self._do(agent, action, task, step.id, stretch, outcome)
                if outcome is not Outcome.FAILED:
                    break
        # A step whose every action was already done takes no time: the person saw it done.
        end = self.actions[-1].end if len(self.actions) > done_before else start
        record.agent, record.start, record.end = agent.id, start, end
        for obj in step.objects():
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
        of the step can still be done afterwards."""
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
            if _run_actions(scratch, self.domain, rest, agent.id):
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
                    needed = step.objects() & held
                    if needed and self._can_take_over(agent, task, step, needed):
                        options.append((giver.index, task, step.id, tuple(sorted(needed))))
        return options

    def _can_take_over(self, agent: AgentClock, task: str, step: Step, needed: set[str]) -> bool:
        if (task, step.id) in self.claimed or not self._predecessors_done(task, step):
            return False
        if not self._unlocked(step.objects() - needed, agent.free_at):
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


def _run_step(state: WorldState, domain: Domain, step: Step, agent: str) -> bool:
    """Apply ``step`` to ``state`` if every action's preconditions hold in turn."""
    return _run_actions(state, domain, step.actions, agent)


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
