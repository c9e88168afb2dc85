"""``python -m taskqa`` runs the command line."""

from taskqa.cli import app

app(prog_name="taskqa")
