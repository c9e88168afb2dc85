"""Procedural QA in the manner of ProMQA: recipe graphs, prefix candidates, sampling,
LLM generate-then-verify and LLM-as-judge scoring.

Submodules are imported on demand; this package imports nothing heavy so that the
``candidates`` command starts fast.
"""
