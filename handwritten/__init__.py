"""The hand-written agent engine: the reference safety contract every column is compared with.

It is a general engine: it knows nothing of scenarios, the harness or adapters.
One module per concept:

- ``tools``: typed tools (``ToolSpec``) with JSON Schemas and risk classes, and their registry.
- ``schema``: strict argument validation (Draft 2020-12, no coercion).
- ``policy``: what each risk class allows before any executor runs.
- ``approvals``: HMAC-signed, single-use approval tokens bound to session, tool, args and expiry.
- ``idempotency``: the engine's own idempotency records (memory or SQLite).
- ``checkpoint``: the versioned, hashed ``AgentState`` and its stores (memory or SQLite).
- ``model``: the ``Model`` protocol the engine talks to.
- ``events``: frozen, kind-tagged trace events that round-trip to JSON.
- ``engine``: the agent loop and its transitions.
- ``steps``: the tagged outcomes of one loop step (``RunAgain``, ``AwaitApproval``, ``Final``, ``Stopped``).
- ``resume``: where a resumed run continues (``resume_position``).
- ``boundary``: the contract for a call from outside the loop (a protocol server's ``ToolBoundary``).
- ``session_records``: a boundary session's waiting calls, signed grants, held keys and idempotency records.
- ``key_locks``: a key held across processes while its call is decided and executed.
- ``private_files``: directories and files only this user can reach, or refused.
"""
