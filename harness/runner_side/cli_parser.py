"""The scripts' argument parser: a usage error is one line on stderr and exit status 2, like a bad scenario file."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are ``error: <message>`` alone (argparse prints its usage block first:
    with this many options that buries the one line that matters); ``--help`` still prints the usage."""

    def error(self, message: str) -> NoReturn:
        print(f"error: {message} (see --help)", file=sys.stderr)
        sys.exit(2)
