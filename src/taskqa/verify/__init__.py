"""EgoTV-style task verification: compositional kitchen tasks, descriptions, negatives, task
graphs and an exact partial-order alignment verifier.

Modules: ``graph`` (queries and their partial-order DAG in EgoTV's DSL notation), ``align``
(the exact downset DP and the order-enumerating reference), ``parser`` (description -> graph),
``tasks`` (the 82 tasks and the splits), ``kitchen`` (the simulated kitchen and its planner),
``kitchen_timeline`` (when each segment happens), ``descriptions`` (positive templates and
negatives), ``benchmark`` (building the pairs), ``render`` (videos of the kitchen),
``scorers`` and ``evaluation`` (verifiers, F1 and accuracy), ``parse_eval`` (the parser against
EgoTV's gold graphs), ``cli`` (the ``taskqa verify`` commands). It keeps its own records (tasks,
graphs, pairs) rather than ``taskqa.model``'s recordings: a verification pair is a description and
a video, not an annotated recording.
"""
