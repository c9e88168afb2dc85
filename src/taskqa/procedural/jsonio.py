"""Moved to :mod:`taskqa.jsonio` (``dumps_indented``, ``write_records``).

TODO: delete once ``procedural/cli.py`` and ``studio/kinds/verify.py`` import from taskqa.jsonio.
"""

from __future__ import annotations

from taskqa.jsonio import dumps_indented, write_records

__all__ = ["dumps_indented", "write_records"]
