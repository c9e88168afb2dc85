"""Offline baselines: each turns a benchmark split into predictions, one per question."""
