"""What ``scripts/serve_mcp.py`` and ``scripts/approve_mcp.py`` share on the command line: bad values are one line."""

from __future__ import annotations

import argparse
import math
import socket
import sys
from typing import NoReturn


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose refusal is one line on stderr (``prog: --flag: why``) and exit status 2, without the
    usage block: a host or a script that starts the program reads the one line that says what was wrong."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def fail(prog: str, message: str) -> int:
    """Print ``prog: message`` on stderr; the exit status of a refused run."""
    print(f"{prog}: {message}", file=sys.stderr)
    return 2


def port(text: str) -> int:
    """A TCP port to listen on: 1 to 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port (1 to 65535)")
    return value


def seconds(text: str) -> float:
    """A duration in seconds: positive and finite."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text} is not a positive, finite number of seconds")
    return value


def printable(text: str) -> str:
    """An id or name typed on the command line: printable characters only (what the shell passed undecoded is not)."""
    if not text.isprintable():  # a byte the shell could not decode arrives as a surrogate, which is not printable either
        raise argparse.ArgumentTypeError(f"not a printable id: {text!r}")
    return text


def bound(port: int) -> socket.socket:
    """A socket bound to 127.0.0.1:``port``, not yet listening (OSError when the port cannot be had: in use, not
    allowed): the port is taken before anything is written, and nobody connects before the server can answer."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError:
        sock.close()
        raise
    return sock
