"""The ``langgraph`` column: a hand-built LangGraph ``StateGraph`` agent over the shared fixture world."""

from harness.columns import Column

COLUMN = Column("langgraph", "adapters.langgraph.column:LangGraphColumn", "isolated", "LangGraph StateGraph + SQLite checkpointer + interrupt()")
