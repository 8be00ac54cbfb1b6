from harness.columns import Column

COLUMN = Column("google_adk", "adapters.google_adk.column:GoogleADKColumn", "isolated",
                "Google ADK LlmAgent + FunctionTool(require_confirmation) + resumable App + SqliteSessionService")
