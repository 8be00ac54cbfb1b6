"""Test-only column: the hand-written engine, whose ``detail`` reports what the sandbox let in."""

from __future__ import annotations

import os
import socket
import sys
from typing import Any

from adapters.handwritten.column import HandwrittenColumn


class Column(HandwrittenColumn):
    name = "probe_sandbox"

    def detail(self, run: Any, mode: str) -> dict[str, Any]:
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
