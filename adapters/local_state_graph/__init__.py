"""The ``local_state_graph`` column: a dependency-free state-graph runtime running the safety contract.

- ``graph``: the builder (``StateGraph``) and the immutable compiled runtime (``CompiledGraph``):
  nodes, edges, conditional edges, a checkpoint after every super-step, interrupts, metadata, Mermaid.
- ``checkpointer``: versioned, hashed checkpoints and their savers (in memory, SQLite).
- ``contract``: the contract as a graph of nodes over the engine's building blocks.
- ``session``: a session driven from outside (inbound events, human answers, resumes).
- ``column``: the column the harness drives (``LocalStateGraphColumn``).
"""

from harness.columns import Column

COLUMN = Column("local_state_graph", "adapters.local_state_graph.column:LocalStateGraphColumn", "project", "a dependency-free state graph running the contract")
