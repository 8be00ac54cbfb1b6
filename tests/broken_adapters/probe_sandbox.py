"""Test-only column: the hand-written engine, whose ``detail`` reports what the sandbox let in."""

from __future__ import annotations

import os
import socket
import sys
from typing import Any

from harness import handwritten_column

COLUMN = "probe_sandbox"
MODES = handwritten_column.MODES
perform, facts = handwritten_column.perform, handwritten_column.facts


def detail(run: Any, mode: str) -> dict[str, Any]:
    try:
        socket.getaddrinfo("example.invalid", 443)  # refused by the audit hook before any lookup happens
        lookup = "allowed"
    except PermissionError:
        lookup = "refused"
    return {
        "environment": sorted(os.environ),
        "isolated": sys.flags.isolated,
        "ignore_environment": sys.flags.ignore_environment,
        "lookup": lookup,
    }
