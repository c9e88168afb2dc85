"""``taskqa studio``: a small web application for human studies over taskqa artifacts.

``create`` makes a SQLite study file from an artifact (``kinds``), ``invite`` issues links,
``serve`` runs the FastAPI app (``app``), and the exports feed ``taskqa evaluate``,
``taskqa procedural verify`` and ``taskqa physics ceg --judgments``. See docs/studio.md.
"""
