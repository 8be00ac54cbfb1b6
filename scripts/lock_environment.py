#!/usr/bin/env python3
"""Regenerate a framework column's hashed lock: adapters/<name>/requirements.lock.

    python scripts/lock_environment.py <adapter name>[@<version>] [--upgrade]

``<name>@<version>`` locks the column's extra pin, ``adapters/<name>/pins/<version>/requirements.in``:
its first lock starts from the default pin's lock, so every package that still resolves keeps the
default pin's version and the two environments differ only where the pins make them.

runs ``uv pip compile --generate-hashes --universal --python-version 3.11`` on
``adapters/<name>/requirements.in`` (with ``UV_PYTHON_DOWNLOADS=never`` and this
interpreter passed explicitly, so uv never downloads a Python), then checks the result
before it replaces the committed lock: only names, exact versions, hashes and comments
(no URL, no index address, no absolute path), every direct pin of ``requirements.in``
at its version, and the root project's core dependencies pinned within their ranges.
Versions already in the lock are kept where they still resolve; ``--upgrade`` lets uv
pick the newest of every transitive package. The lock's header names this command.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # runnable from a fresh clone without installing

from harness.columns import PIN_SEPARATOR, PINS_DIR  # noqa: E402
from harness.runner_side.run.environments import (  # noqa: E402
    LOCK_NAME,
    REQUIREMENTS_IN_NAME,
    EnvironmentBuildError,
    check_root_dependencies,
    direct_pins,
    find_uv,
    lock_pins,
    run_checked,
)

PYTHON_VERSION = "3.11"
ADAPTERS = ROOT / "adapters"


def lock(name: str, *, upgrade: bool = False) -> Path:
    """Compile, check and write ``adapters/<name>/requirements.lock`` (``<name>@<version>``: the lock of that extra pin,
    in ``adapters/<name>/pins/<version>/``); exits with the reason when refused."""
    base, _, pin = name.partition(PIN_SEPARATOR)
    adapter = ADAPTERS / base / PINS_DIR / pin if pin else ADAPTERS / base
    requirements_in, target = adapter / REQUIREMENTS_IN_NAME, adapter / LOCK_NAME
    if not requirements_in.is_file():
        raise SystemExit(f"lock_environment: no {requirements_in.relative_to(ROOT)} (is {name!r} an adapter name?)")
    uv, uv_version = find_uv()
    staging = adapter / f".{LOCK_NAME}.new"
    # uv prefers the versions already in its output file: start from the committed lock (a new pin's: the default's).
    seed = target if target.is_file() else ADAPTERS / base / LOCK_NAME
    staging.write_bytes(seed.read_bytes() if seed.is_file() and not upgrade else b"")
    command = [
        *uv, "pip", "compile",
        "--generate-hashes", "--universal", "--python-version", PYTHON_VERSION,
        "--python", sys.executable,
        "--no-emit-index-url", "--no-emit-find-links",
        "--custom-compile-command", f"python scripts/lock_environment.py {name}",
        *(["--upgrade"] if upgrade else []),
        REQUIREMENTS_IN_NAME, "-o", staging.name,
    ]  # relative paths, run from the adapter directory: the annotations name 'requirements.in', not a path
    try:
        direct = direct_pins(requirements_in)  # exact pins only, or it raises naming the line
        print(f"lock_environment: {uv_version}: compiling {requirements_in.relative_to(ROOT)}", flush=True)
        run_checked(name, command, "uv pip compile", adapter)
        pins = lock_pins(staging)  # refuses anything but hashed pins and comments free of addresses and paths
        wrong = {n: (v, pins.get(n)) for n, v in direct.items() if pins.get(n) != v}
        if wrong:
            raise SystemExit(f"lock_environment: REFUSED: direct pins not locked as written: {wrong}")
        check_root_dependencies(name, pins)
        os.replace(staging, target)
    except EnvironmentBuildError as exc:
        raise SystemExit(f"lock_environment: REFUSED: {exc}") from None
    finally:
        staging.unlink(missing_ok=True)
    print(f"lock_environment: wrote {target.relative_to(ROOT)}: {len(pins)} packages, {target.stat().st_size} bytes")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("adapter", help="adapter name: the directory adapters/<name>/ holding requirements.in; "
                                        "<name>@<version> for the extra pin in adapters/<name>/pins/<version>/")
    parser.add_argument("--upgrade", action="store_true", help="ignore the committed lock's versions and take the newest")
    args = parser.parse_args(argv)
    lock(args.adapter, upgrade=args.upgrade)
    return 0


if __name__ == "__main__":
    sys.exit(main())
