"""The registry of public data files (``registry.yaml``): sources, pinned files, derived files.

A name reads like a path (``promqa/graphs.json``) and is where the file lies in the cache, so a
filled cache is laid out as ``../shared/data`` is. A folder of names (``captaincook4d``,
``captaincook4d/task_graphs``) is a group and stands for every entry under it.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Annotated

import yaml
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

RAW_GITHUB = "https://raw.githubusercontent.com"
Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
Commit = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}$")]
Name = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$")]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Source(_Frozen):
    """A repository at a pinned commit, and the licence its files are published under."""

    repository: str = Field(pattern=r"^[\w.-]+/[\w.-]+$")
    commit: Commit
    licence: str
    licence_url: str


class PinnedFile(_Frozen):
    """A file downloaded byte for byte from its source; ``sha256`` None when not pinned."""

    name: Name
    source: str
    path: str
    size: int | None = Field(ge=0)
    sha256: Sha256 | None

    def url(self, sources: dict[str, Source], base_url: str = RAW_GITHUB) -> str:
        source = sources[self.source]
        return f"{base_url.rstrip('/')}/{source.repository}/{source.commit}/{self.path}"


class DerivedFile(_Frozen):
    """A file made locally from other entries (files or groups) by a recipe of taskqa.data.derive.

    ``sha256`` and ``size`` are those of the reference copy the recipe reproduces.
    """

    name: Name
    description: str
    recipe: str
    inputs: tuple[Name, ...] = Field(min_length=1)
    size: int = Field(ge=0)
    sha256: Sha256


Entry = PinnedFile | DerivedFile


class Registry(_Frozen):
    sources: dict[str, Source]
    files: tuple[PinnedFile, ...]
    derived: tuple[DerivedFile, ...]

    @model_validator(mode="after")
    def _consistent(self) -> Registry:
        names = [entry.name for entry in self.entries()]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"names listed twice: {', '.join(repeated)}")
        unknown = sorted({f.source for f in self.files} - set(self.sources))
        if unknown:
            raise ValueError(f"files name unknown sources: {', '.join(unknown)}")
        for derived in self.derived:
            for name in derived.inputs:
                if not self.select(name) or any(e.name == derived.name for e in self.select(name)):
                    raise ValueError(f"{derived.name}: input {name} is not a file or group")
        return self

    def entries(self) -> list[Entry]:
        return [*self.files, *self.derived]

    def select(self, name: str) -> list[Entry]:
        """The entry called ``name``, or every entry in the group ``name``; [] if neither."""
        name = name.strip("/")
        exact = [entry for entry in self.entries() if entry.name == name]
        return exact or [entry for entry in self.entries() if entry.name.startswith(name + "/")]

    def is_group(self, name: str) -> bool:
        name = name.strip("/")
        return bool(self.select(name)) and all(e.name != name for e in self.entries())

    def sources_of(self, entry: Entry) -> list[Source]:
        """The sources a file comes from (for a derived file, those of all its inputs)."""
        if isinstance(entry, PinnedFile):
            return [self.sources[entry.source]]
        found: dict[str, Source] = {}
        for name in entry.inputs:
            for inner in self.select(name):
                for source in self.sources_of(inner):
                    found.setdefault(source.repository, source)
        return list(found.values())


@cache
def load_registry() -> Registry:
    """The registry shipped with taskqa (``taskqa/data/registry.yaml``)."""
    text = resources.files("taskqa.data").joinpath("registry.yaml").read_text("utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the C parser where PyYAML has it
    return Registry.model_validate(yaml.load(text, Loader=loader))
