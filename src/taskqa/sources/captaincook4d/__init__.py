"""CaptainCook4D: cooking recordings as executions of recipe task graphs, with error tags.

- :func:`read_captaincook4d` turns the annotation release into :class:`~taskqa.model.Recording`s;
- :func:`load_task_graphs` reads the recipe DAGs from ``task_graphs/`` or ProMQA's ``graphs.json``;
- :func:`validate_captaincook4d_file` reports every problem of a release file, with its path;
- :func:`detect_captaincook4d` tells ``taskqa validate`` which paths belong here.

See docs/sources/captaincook4d.md for the id mapping, the missing-step rule and the assumptions.
"""

from taskqa.sources.captaincook4d.graphs import graph_file_name, load_task_graphs
from taskqa.sources.captaincook4d.mapping import StepLocalizer
from taskqa.sources.captaincook4d.reader import FPS, read_captaincook4d, video_uri
from taskqa.sources.captaincook4d.validate import (
    FileKind,
    detect_captaincook4d,
    validate_captaincook4d_file,
)

__all__ = [
    "FPS",
    "FileKind",
    "StepLocalizer",
    "detect_captaincook4d",
    "graph_file_name",
    "load_task_graphs",
    "read_captaincook4d",
    "validate_captaincook4d_file",
    "video_uri",
]
