"""Large files a shard writes itself (videos), for commands whose output folder appears whole.

Such a command stages its output and swaps it in at the end, so its shards cannot write into
the output directly. They write into the media folder of the run's journal instead (a path
every worker must see: on a cluster, shared storage) and send back each file's sha256; the
driver moves the files into the staged output once every shard is done. A resumed run reuses a
journaled shard only if its files are still there with the digests recorded.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from taskqa.atomic import sha256_file

MEDIA = "media"


def media_folder(journal: Path) -> Path:
    return journal / MEDIA


def media_intact(media: Path) -> Callable[[Mapping[str, str]], bool]:
    """Whether every file of a shard's ``{relative path: sha256}`` is there, unchanged."""

    def intact(digests: Mapping[str, str]) -> bool:
        return all(
            (media / name).is_file() and sha256_file(media / name) == digest
            for name, digest in digests.items()
        )

    return intact


def move_media(media: Path, target: Path, names: list[str]) -> None:
    """Move the named files from the media folder into ``target`` (same file system)."""
    for name in names:
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        os.replace(media / name, destination)
