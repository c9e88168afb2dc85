"""EgoTaskQA-style questions: templates, their instantiation on clips, well-posedness rules,
plain-English wording, indirect references, generation over a corpus and re-checking answers."""
