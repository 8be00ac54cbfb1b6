from harness.columns import Column

COLUMN = Column("agent_framework", "adapters.agent_framework.column:AgentFrameworkColumn", "isolated",
                "Microsoft Agent Framework Agent + @tool(approval_mode) + AgentSession.to_dict saved after every run")
