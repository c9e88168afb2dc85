"""JSON Schema of taskqa's models, for people who read or write corpora in other languages."""

from __future__ import annotations

from typing import Any

from taskqa.corpus import CorpusManifest
from taskqa.model import Recording

MODELS: dict[str, type[Recording] | type[CorpusManifest]] = {
    "recording": Recording,
    "corpus": CorpusManifest,
}


def json_schema(model: str) -> dict[str, Any]:
    schema = MODELS[model].model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema
