"""The ``agentscope`` column: an AgentScope 2.x ``Agent`` over the shared fixture world."""

from harness.columns import Column

COLUMN = Column("agentscope", "adapters.agentscope.column:AgentScopeColumn", "isolated", "AgentScope 2.x Agent + Toolkit + permission system + AgentState")
