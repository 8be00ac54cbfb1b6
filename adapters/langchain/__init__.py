
from harness.columns import Column

COLUMN = Column("langchain", "adapters.langchain.column:LangChainColumn", "isolated", "LangChain create_agent + HumanInTheLoopMiddleware")
