"""Adapters for real models: frames from clip videos, prompts, an OpenAI-compatible chat run."""
