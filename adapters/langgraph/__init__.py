"""The ``langgraph`` column: a hand-built LangGraph ``StateGraph`` agent over the shared fixture world."""
