"""CLEVRER-style physical scenes and CLEVRER-Humans-style causal event graphs.

The package simulates collision scenes with the Bullet engine (pybullet), reads and writes the
CLEVRER annotation and question formats, finds events in trajectories, builds causal event
graphs from graded judgments and turns them into "which is responsible" questions.
"""
