"""The runner's servers a column process reaches over loopback, each out of every column's reach: ``wire``, the scripted
OpenAI-compatible model server of the ``wire`` mode; ``mcp``, the MCP server of the ``mcp`` mode (started, watched and
started again by the runner)."""
