"""MCP as a protocol boundary, not an authorization boundary (needs the ``mcp`` extra: the official MCP SDK).

- ``server``: the MCP server over the engine's tool boundary (``handwritten.boundary``), stdio or Streamable HTTP;
- ``bounded``: the transports' limits on a message (size, nesting), each refusal answered with a JSON-RPC error;
- ``session``: where a served session keeps its files, and the harness's wiring of a server into a scenario run;
- ``client``: the engine's tools taken from an MCP server it starts and supervises over stdio;
- ``forked``: a stdio server forked from a process that has imported the SDK (the column's, one per driver step);
- ``cli``: what ``scripts/serve_mcp.py`` and ``scripts/approve_mcp.py`` share: one-line refusals of bad values.
"""

META_PREFIX = "agent-framework-bench/"
RISK_META = META_PREFIX + "risk"  # on each tool in tools/list: its risk class
ACTS_FOR_META = META_PREFIX + "acts_for"  # on a tool that acts for the session's user: the argument naming the user
KEY_META = META_PREFIX + "idempotency_key"  # on tools/call: the key that recognises a re-sent call
APPROVAL_META = META_PREFIX + "approval"  # on tools/call: an approval a client attaches (always refused)
