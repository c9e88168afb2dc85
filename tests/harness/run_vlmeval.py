"""VLMEvalKit's own dataset machinery on a taskqa export (run in .venv-harness).

    python run_vlmeval.py EXPORT DATASET NFRAME REPLIES.json OUT.json

Loads the exported ``TaskQA`` class (a ``vlmeval`` ``VideoBaseDataset``), builds the frame
prompt of the first document (VLMEvalKit extracts the frames with decord), writes the first
documents with the scripted replies as a prediction file through ``vlmeval.smp.dump``, and runs
the class's ``evaluate`` on it; prints nothing, writes what it saw to OUT.json.
"""

import json
import sys
from pathlib import Path

export, dataset_name, nframe, replies_file, out = sys.argv[1:6]
sys.path.insert(0, export)

from taskqa_vlmeval import TaskQA  # noqa: E402
from vlmeval.smp import dump  # noqa: E402

replies = json.loads(Path(replies_file).read_text(encoding="utf-8"))
dataset = TaskQA(dataset_name, nframe=int(nframe))
message = dataset.build_prompt(dataset.data.iloc[0], video_llm=False)
data = dataset.data.head(len(replies)).copy()
data["prediction"] = [replies[str(q)] for q in data["question_id"]]
predictions = str(Path(out).with_name("predictions.xlsx"))
dump(data, predictions)
result = dataset.evaluate(predictions)
Path(out).write_text(
    json.dumps(
        {
            "documents": len(dataset),
            "supported": TaskQA.supported_datasets(),
            "message": [[part["type"], str(part["value"])] for part in message],
            "result": result,
        }
    ),
    encoding="utf-8",
)
