"""Sections of ``evidence/FINDINGS.md`` that read more of the evidence than the rules' reasons (``findings`` assembles
them):

- ``mcp_clients``: the tables of "Frameworks as MCP clients", what the runner's MCP server counted of each framework's
  MCP client (per server fault, and what each client sent over the mode).
- ``sweep``: "A crash at every kill point", the crash sweep's rows (``evidence/sweep.json``) and its rules' findings,
  also the report's section.
"""

from __future__ import annotations
