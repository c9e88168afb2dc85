"""Whether a viewer can foresee the person's next step from what the clip shows of their task.

A prediction ("after the person's next action, will the faucet be on or off?") is a fair question
only where the clip points to the next step. Blind viewers answering from the frames missed such
questions most (issue 33: three of the six misses of its viewer study, and 15 of the 19
problems of its strict review were predictions nothing on screen settles). The next step is
foreseen here where the person's next action

- **continues a step the clip shows started**: the last action shown serves the same step of the
  same task (the cup taken off the coffee table is next put in the sink); or
- **is the one step the task allows next**: the last action shown serves the same task, and of
  that task's steps not done by the clip's end (by anyone) exactly one has all its predecessors
  in the task graph done: the next action's (the mug washed and placed, the coffee goes in).

An action that serves no step, or a task the last shown action does not serve (the person turns
to something else), is not foreseen. A recording without procedures (annotations with no task
graph) says nothing either way, and its predictions are kept as before.
"""

from __future__ import annotations

from taskqa.model import ActionSegment, Recording
from taskqa.programs.clips import Clip

EPSILON = 1e-6  # step ends and the prediction point are the same rounded seconds


def next_step_foreseen(recording: Recording, clip: Clip) -> bool:
    """Whether the clip's person's next action is foreseen from the clip (module docstring)."""
    if not clip.future or not clip.observed or not recording.procedures:
        return True
    by_id = {action.id: action for action in recording.actions}
    upcoming, last = by_id[clip.future[0]], by_id[clip.observed[-1]]
    tasks = set(upcoming.tasks) & set(last.tasks)
    if upcoming.step is None or not tasks:
        return False
    if last.step == upcoming.step:
        return True
    return any(_only_step_left(recording, task, upcoming, clip) for task in sorted(tasks))


def _only_step_left(recording: Recording, task: str, upcoming: ActionSegment, clip: Clip) -> bool:
    """Whether ``upcoming``'s step is the only step of ``task`` ready at the prediction point."""
    for procedure in recording.procedures:
        graph = procedure.task_graph
        if graph.name != task or not any(
            s.step == upcoming.step and s.agent in (None, clip.agent) for s in procedure.steps
        ):
            continue
        done = {graph.start} | {
            s.step
            for s in procedure.steps
            if s.end is not None and s.end <= clip.prediction_start + EPSILON
        }
        needs: dict[str, set[str]] = {s.id: set() for s in graph.steps}
        for before, after in graph.edges:
            needs[after].add(before)
        ready = {
            step
            for step, before in needs.items()
            if step not in done and step != graph.end and before <= done
        }
        return ready == {upcoming.step}
    return False
