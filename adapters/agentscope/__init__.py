"""The ``agentscope`` column: an AgentScope 2.x ``Agent`` over the shared fixture world."""
