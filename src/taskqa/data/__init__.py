"""The public annotation files taskqa reads: a registry, a user cache, downloads checked by sha256.

- :func:`resolve_input` turns ``data:NAME`` (or a plain path) into a path; commands attach
  :func:`data_paths` to their input options;
- :mod:`taskqa.data.registry` reads ``registry.yaml`` (sources, pinned commits, sizes, sha256,
  licences); :mod:`taskqa.data.cache` locates the cache; :mod:`taskqa.data.fetch` downloads
  through pooch; :mod:`taskqa.data.derive` makes the derived files;
- ``taskqa data list | info | path | download | derive`` (:mod:`taskqa.data.cli`).

See docs/data.md.
"""

from taskqa.data.resolve import PREFIX, data_paths, resolve_input

__all__ = ["PREFIX", "data_paths", "resolve_input"]
