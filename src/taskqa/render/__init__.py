"""Pixels for every simulated world: the shared render core.

The back-ends (``engine``: pybullet's TinyRenderer, and the scene protocol every back-end
draws; ``gl``: moderngl on EGL), H.264 files (``video``, PyAV), the ``--backend`` option
(``options``) and easing (``easing``). Each world keeps its own scene, look and frame loop
beside its simulation and draws through this package: the household in ``taskqa.household``,
the EgoTV kitchen in ``taskqa.verify``, the CLEVRER-style scenes in ``taskqa.physics``.
"""
