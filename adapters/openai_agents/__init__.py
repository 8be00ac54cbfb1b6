
from harness.columns import Column

COLUMN = Column("openai_agents", "adapters.openai_agents.column:OpenAIAgentsColumn", "isolated", "OpenAI Agents SDK Agent + Runner + needs_approval + RunState")
