"""Readers and writers, one module per annotation format."""
