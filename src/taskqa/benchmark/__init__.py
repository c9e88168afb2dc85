"""Balanced benchmarks: answer balancing, splits, shortcut diagnostics and publishing."""
