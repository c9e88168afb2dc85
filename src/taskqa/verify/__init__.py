"""EgoTV-style task verification: compositional kitchen tasks, descriptions, negatives, task
graphs and an exact partial-order alignment verifier.

Modules: ``graph`` (queries and their partial-order DAG in EgoTV's DSL notation), ``align``
(the exact downset DP and the order-enumerating reference), ``parser`` (description -> graph),
``tasks`` (the 82 tasks and the splits), ``kitchen`` (the simulated kitchen and its planner),
``descriptions`` (positive templates and negatives), ``benchmark`` (building the pairs),
``scorers`` and ``metrics`` (evaluation), ``cli`` (the ``taskqa verify`` commands).
"""
