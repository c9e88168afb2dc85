"""The household world's pictures: its look, its scene and its one frame loop.

Its simulation is the generic, domain-driven simulator (``taskqa.simulation``, with the
household domain file ``simulation/domains/household.yaml``); this package draws what it
simulated through the shared render core (``taskqa.render``):

- ``look_spec`` reads the look file (``household.yaml``: models and room layouts),
  ``thing_look`` turns one thing's state into coloured primitives, ``timeline`` rebuilds the
  world state at any moment, ``motion`` moves the hands and doors, ``gaze`` says where each
  person stands and looks, and ``scene`` puts it all in a room that any view can capture;
- ``frames`` is the frame loop (moments to pictures) that everything below draws with;
  ``options`` holds what a render draws (``RenderOptions``, the views);
- ``recording_files`` writes one recording's videos, masks and depth, ``selection`` chooses
  the recordings, ``manifest`` records the files' digests and options, ``corpus_videos``
  renders a corpus and points its recordings at the files, ``benchmark_videos`` renders a
  built benchmark's missing videos;
- ``mask_statistics`` (pixels per thing, for the grounding check), ``probe`` (the pixel probe)
  and ``sheet`` (the contact sheet, rows in ``sheet.yaml``); ``cli`` is ``taskqa render``.
"""
