"""Reading recordings from any supported source and writing them in another format."""

from __future__ import annotations

from pathlib import Path

from taskqa.corpus import CorpusManifest, is_corpus, read_corpus, write_corpus
from taskqa.model import Recording
from taskqa.problems import InvalidInputError, Problem
from taskqa.simulation.corpus import corpus_domain
from taskqa.simulation.domain import load_domain


def read_recordings(source: Path) -> tuple[list[Recording], dict[str, str]]:
    """Recordings from a corpus, EgoTaskQA/LEMMA or CaptainCook4D folder, plus verb templates."""
    from taskqa.sources import captaincook4d, egotaskqa

    if not source.exists():
        raise InvalidInputError([Problem(str(source), "", "not found")])
    if is_corpus(source):
        recordings = read_corpus(source)
        # the corpus's own world says its verbs; annotations with none use the built-in phrasing
        domain = corpus_domain(source, recordings) or load_domain()
        return recordings, domain.templates
    if egotaskqa.detect_egotaskqa(source):
        return egotaskqa.read_egotaskqa(source), load_domain().templates
    if captaincook4d.detect_captaincook4d(source) and source.is_dir():
        return captaincook4d.read_captaincook4d(source), {}
    message = "expected a taskqa corpus, EgoTaskQA/LEMMA or CaptainCook4D folder"
    raise InvalidInputError([Problem(str(source), "", message)])


def convert_recordings(source: Path, target_format: str, out: Path) -> int:
    from taskqa.sources import egotaskqa

    recordings, templates = read_recordings(source)
    if target_format == "egotaskqa":
        egotaskqa.write_egotaskqa(recordings, out, templates)
    else:
        manifest = CorpusManifest(generator=f"taskqa convert from {source.name}")
        write_corpus(out, recordings, manifest)
    return len(recordings)
