"""``python -m taskqa.procedural``: the procedural sub-application on its own, without the
imports of the whole ``taskqa`` command line (what the speed benchmark times)."""

from taskqa.procedural.cli import app

app(prog_name="taskqa procedural")
