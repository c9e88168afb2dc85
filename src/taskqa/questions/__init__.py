"""EgoTaskQA-style questions: clips of recordings, and (to come) templates and instantiation."""
