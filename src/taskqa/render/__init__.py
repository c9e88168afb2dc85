"""Pixels for every simulated world: one render layer shared by the household world, the EgoTV
kitchen and the physics scenes (pybullet's CPU renderer for frames, PyAV for H.264 files)."""
