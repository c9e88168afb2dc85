"""lmms-eval's own command line with a scripted model registered (run in .venv-harness).

    TASKQA_SCRIPTED_REPLIES=replies.json python run_scripted.py --model taskqa_scripted \
        --tasks taskqa_normal --include_path EXPORT --limit 5 --output_path OUT --force_simple

The model answers each request with the reply its prompt (the document's text as lmms-eval
builds it) has in the replies file, and "no idea" otherwise; it never looks at the video. A
reply keyed ``TASK#DOC_ID`` answers that one document whatever its text: the two questions of a
minimal pair share their text, and a model that watches answers them apart. It is
registered in lmms-eval's model registry (0.7's ``MODEL_REGISTRY_V2``) before the CLI parses
its arguments, so everything else is lmms-eval's: task loading, documents, scoring, results.
"""

import json
import os
import sys
from pathlib import Path

from lmms_eval.api.model import lmms

REPLIES = json.loads(Path(os.environ["TASKQA_SCRIPTED_REPLIES"]).read_text(encoding="utf-8"))


class Scripted(lmms):
    def __init__(self, **kwargs):
        super().__init__()

    def generate_until(self, requests):
        # arguments: (context, generation kwargs, doc_to_visual, doc_id, task, split)
        return [
            REPLIES.get(f"{request.args[4]}#{request.args[3]}")
            or REPLIES.get(request.args[0], "no idea")
            for request in requests
        ]

    def loglikelihood(self, requests):
        raise NotImplementedError("the taskqa tasks only generate")

    def generate_until_multi_round(self, requests):
        raise NotImplementedError("the taskqa tasks are single-turn")


if __name__ == "__main__":
    from lmms_eval.__main__ import cli_evaluate
    from lmms_eval.models import MODEL_REGISTRY_V2
    from lmms_eval.models.registry_v2 import ModelManifest

    MODEL_REGISTRY_V2.register_manifest(
        ModelManifest(model_id="taskqa_scripted", simple_class_path="__main__.Scripted")
    )
    sys.argv = ["lmms-eval", *sys.argv[1:]]
    cli_evaluate()
