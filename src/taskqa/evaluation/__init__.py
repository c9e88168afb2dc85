"""Scoring models on a built benchmark: predictions, metrics, reports, baselines, adapters.

Entry points: ``taskqa.evaluation.evaluate.evaluate`` and ``results_json``,
``taskqa.benchmark.folder.Benchmark``, ``taskqa.answers.normalize_answer``.
The package itself imports nothing, so the command line starts fast.
"""
