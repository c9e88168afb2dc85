"""The 82 EgoTV tasks (appendix Table 8): six sub-tasks composed with ``and`` and ``then``.

A task name such as ``clean_and_heat_then_slice`` reads as blocks separated by ``_then_``;
sub-tasks inside a block are unordered, and every sub-task of a block precedes every sub-task of
the next. The order of sub-tasks inside the name also fixes EgoTV's step numbering of the graph.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from taskqa.verify.graph import SubTask

Blocks = tuple[tuple[SubTask, ...], ...]

TASK_NAMES: tuple[str, ...] = (
    # complexity 1
    "clean_simple", "cool_simple", "heat_simple", "pick_simple", "place_simple", "slice_simple",
    # complexity 2, no ordering
    "clean_and_cool", "clean_and_heat", "clean_and_place", "clean_and_slice", "cool_and_place",
    "heat_and_place", "slice_and_cool", "slice_and_heat", "slice_and_place",
    # complexity 2, one "then"
    "clean_then_cool", "clean_then_heat", "clean_then_place", "clean_then_slice",
    "cool_then_clean", "cool_then_place", "cool_then_slice", "heat_then_clean",
    "heat_then_place", "heat_then_slice", "slice_then_clean", "slice_then_cool",
    "slice_then_heat", "slice_then_place",
    # complexity 3, no ordering
    "slice_and_clean_and_place", "cool_and_clean_and_place", "cool_and_slice_and_place",
    "heat_and_clean_and_place", "slice_and_heat_and_place", "slice_and_heat_and_clean",
    "cool_and_slice_and_clean",
    # complexity 3, ordered
    "clean_then_cool_then_place", "clean_then_cool_then_slice", "clean_then_heat_then_place",
    "clean_then_heat_then_slice", "clean_then_slice_then_cool", "clean_then_slice_then_heat",
    "cool_then_clean_then_place", "cool_then_clean_then_slice", "cool_then_slice_then_clean",
    "heat_then_clean_then_place", "heat_then_clean_then_slice", "heat_then_slice_then_clean",
    "slice_then_clean_then_cool", "slice_then_clean_then_heat", "slice_then_clean_then_place",
    "slice_then_cool_then_clean", "slice_then_cool_then_place", "slice_then_heat_then_clean",
    "slice_then_heat_then_place", "clean_and_cool_then_place", "clean_and_cool_then_slice",
    "clean_and_heat_then_place", "clean_and_heat_then_slice", "clean_and_slice_then_cool",
    "clean_and_slice_then_heat", "clean_then_cool_and_slice", "clean_then_heat_and_slice",
    "cool_and_slice_then_clean", "cool_then_clean_and_slice", "heat_and_slice_then_clean",
    "heat_then_clean_and_slice", "slice_and_clean_then_place", "slice_and_cool_then_place",
    "slice_and_heat_then_place", "slice_then_clean_and_cool", "slice_then_clean_and_heat",
    "clean_then_cool_and_place", "clean_then_heat_and_place", "clean_then_slice_and_place",
    "slice_then_cool_and_place", "slice_then_heat_and_place", "slice_then_clean_and_place",
    "heat_then_clean_and_place", "heat_then_slice_and_place", "cool_then_clean_and_place",
    "cool_then_slice_and_place",
)  # fmt: skip


@dataclass(frozen=True)
class Task:
    name: str

    @cached_property
    def blocks(self) -> Blocks:
        body = self.name.removesuffix("_simple")
        return tuple(
            tuple(SubTask(part) for part in block.split("_and_")) for block in body.split("_then_")
        )

    @property
    def subtasks(self) -> tuple[SubTask, ...]:
        return tuple(s for block in self.blocks for s in block)

    @property
    def complexity(self) -> int:
        return len(self.subtasks)

    @property
    def ordering(self) -> int:
        """Number of ``then``s, except that a 3-sub-task task with one ``then`` counts as 2
        (EgoTV's ``task_axis_stats``; Table 8 has no complexity-3, ordering-1 cell)."""
        thens = len(self.blocks) - 1
        return 2 if self.complexity == 3 and thens == 1 else thens

    @property
    def novel(self) -> bool:
        """The held-out novel compositions: both cool and clean, or all of heat, slice, place."""
        parts = set(self.subtasks)
        return {SubTask.COOL, SubTask.CLEAN} <= parts or {
            SubTask.HEAT,
            SubTask.SLICE,
            SubTask.PLACE,
        } <= parts

    @property
    def structure(self) -> tuple[frozenset[SubTask], ...]:
        return tuple(frozenset(block) for block in self.blocks)


TASKS: tuple[Task, ...] = tuple(Task(name) for name in TASK_NAMES)
TRAIN_TASKS: tuple[Task, ...] = tuple(task for task in TASKS if not task.novel)
NOVEL_TASKS: tuple[Task, ...] = tuple(task for task in TASKS if task.novel)
TASK_BY_NAME: dict[str, Task] = {task.name: task for task in TASKS}
TASK_BY_STRUCTURE: dict[tuple[frozenset[SubTask], ...], Task] = {
    task.structure: task for task in TASKS
}


def task_for_blocks(blocks: Blocks) -> Task | None:
    """The task whose blocks hold the same sub-tasks, whatever their order inside a block."""
    return TASK_BY_STRUCTURE.get(tuple(frozenset(block) for block in blocks))
