from harness.columns import Column

COLUMN = Column("pydantic_ai", "adapters.pydantic_ai.column:PydanticAIColumn", "isolated",
                "Pydantic AI Agent + requires_approval + DeferredToolRequests + saved message history")
