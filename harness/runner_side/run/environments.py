"""One isolated virtual environment per third-party column, built by uv from a hashed lock.

``adapters/<name>/requirements.in`` holds a column's direct, exact pins; ``requirements.lock``
beside it is ``uv pip compile --generate-hashes --universal`` output (``python
scripts/lock_environment.py <name>`` regenerates it) that also pins the root project's core
dependencies, because the root goes in editable and without its dependencies: the shared
world (``harness``, ``handwritten``) is always the working tree, never a stale copy.

:func:`ensure_environment` runs, with ``UV_PYTHON_DOWNLOADS=never``, ``uv venv --relocatable
--python <this interpreter>``, ``uv pip install --require-hashes --no-deps --no-build --strict
-r requirements.lock`` and ``uv pip install --no-deps -e <repo>``. Then the environment's own
``python -I`` lists its distributions with ``importlib.metadata``: every pin whose marker holds
on this interpreter must be installed at exactly its version, and ``harness`` must be this repo's.

Environments live in ``<cache root>/<name>-<key[:16]>`` (key: SHA-256 of the Python ``major.minor`` and the lock;
cache root: the ``cache_root`` argument, ``$AGENT_BENCH_ENV_CACHE`` or ``<repo>/.cache/envs``), built in a temporary
sibling renamed into place once verified, under a file lock beside it (``<name>-<key[:16]>.lock``): one machine builds
an environment once however many processes ask for it. A later call re-checks the versions and reuses the environment,
unless its record (``agent-bench-env.json``, written last) is missing or names another lock, repository, interpreter or
root project (``pyproject.toml``, top-level packages): then it is rebuilt.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.markers import Marker, default_environment
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from harness.columns import Column
from harness.errors import HarnessError

REPO_ROOT = Path(__file__).resolve().parents[3]
CACHE_ENV_VAR = "AGENT_BENCH_ENV_CACHE"
LOCK_NAME = "requirements.lock"
REQUIREMENTS_IN_NAME = "requirements.in"
MARKER_NAME = "agent-bench-env.json"
TIMEOUT_SECONDS = 1800

# Caller settings that would point uv at another interpreter or switch off its hash checks.
_DROPPED_ENV_VARS = {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "VIRTUAL_ENV", "CONDA_PREFIX",
                     "UV_PYTHON", "UV_SYSTEM_PYTHON", "UV_NO_VERIFY_HASHES"}
# A URL, a host followed by a path ("example.org/simple"), or a direct reference ("name @ ...").
_ADDRESS = re.compile(r"://|\bwww\.|\b[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d+)?/|\s@\s", re.IGNORECASE)
_ABSOLUTE_PATH = re.compile(r"(?:^|[\s=\"'(])(?:/[^\s/]|~/|[A-Za-z]:[\\/])")
# A logical lock line: a requirement, then its hashes (anything else stays in the requirement and fails to parse).
_LOCK_ENTRY = re.compile(r"(?P<requirement>.*?)(?P<hashes>(?:\s+--hash=sha256:[0-9a-f]{64})*)\s*")


class EnvironmentBuildError(HarnessError):
    """A column's isolated environment could not be built, verified or reused; the message names the column."""


@dataclass(frozen=True)
class Environment:
    """A built (or reused) isolated environment of one column."""

    name: str
    python: Path  # the environment's interpreter (run it as ``python -I``)
    key: str  # sha256 hex of the Python major.minor and the lock bytes
    versions: dict[str, str]  # canonical name -> installed version, for every pin that applies here
    reused: bool
    path: Path  # the environment's directory


@dataclass(frozen=True)
class Pin:
    """One ``name==version [; marker]`` requirement, with its hashes when it comes from a lock."""

    name: str  # canonical (PEP 503)
    version: str
    marker: Marker | None
    hashes: tuple[str, ...] = ()


# --------------------------------------------------------------------------- locks


def _exact_pin(text: str, hashes: tuple[str, ...] = ()) -> Pin | None:
    """``text`` as a pin when it is exactly ``name[extras]==version [; marker]``; None for anything else."""
    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        return None
    specifiers = list(requirement.specifier)
    if requirement.url or len(specifiers) != 1 or specifiers[0].operator != "==" or "*" in specifiers[0].version:
        return None
    return Pin(canonicalize_name(requirement.name), specifiers[0].version, requirement.marker, hashes)


def _parse_lock(text: str) -> tuple[list[Pin], list[str]]:
    """The pins of a lock's text, and everything wrong with it."""
    problems, code = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if _ADDRESS.search(line) or _ABSOLUTE_PATH.search(line.lstrip(" #")):
            problems.append(f"line {number}: holds an address or absolute path: {line.strip()!r}")
        elif not line.lstrip().startswith("#"):
            code.append(line.rstrip())
    pins = []
    for entry in filter(None, map(str.strip, "\n".join(code).replace("\\\n", " ").splitlines())):
        match = _LOCK_ENTRY.fullmatch(entry)
        assert match is not None  # the requirement part is ``.*?``: every line matches
        requirement, hashes = match.group("requirement", "hashes")
        pin = _exact_pin(requirement, tuple(re.findall(r"[0-9a-f]{64}", hashes)))
        if pin is None:
            problems.append(f"not a 'name==version' pin: {entry!r}")
        elif not pin.hashes:
            problems.append(f"{requirement}: pinned without a hash")
        else:
            pins.append(pin)
    if not pins and not problems:
        problems.append("no pinned requirement at all")
    return pins, problems


def check_lock_text(text: str) -> list[str]:
    """Everything wrong with a lock's text; empty when it holds only hashed pins and comments.

    Anything but comments and ``name==version [; marker]`` pins with ``--hash=sha256:`` lines is
    a problem, and so is any URL, host address or absolute path, in comments too.
    """
    return _parse_lock(text)[1]


def lock_entries(lock: Path) -> list[Pin]:
    """Every pin of a hashed lock, in file order; refuses a lock :func:`check_lock_text` objects to."""
    pins, problems = _parse_lock(Path(lock).read_text(encoding="utf-8"))
    if problems:
        listed = "\n  ".join(problems)
        raise EnvironmentBuildError(f"environment {Path(lock).parent.name!r}: {lock} is not a hashed lock:\n  {listed}")
    return pins


def lock_pins(lock: Path, *, marker_environment: Mapping[str, Any] | None = None) -> dict[str, str]:
    """``{canonical name: version}`` of a hashed lock.

    Without ``marker_environment`` every pin counts; with one (such as
    ``packaging.markers.default_environment()``) only the pins whose marker holds there.
    A name pinned at two versions is refused when both pins count.
    """
    pins: dict[str, str] = {}
    for pin in lock_entries(lock):
        if marker_environment is not None and pin.marker is not None and not pin.marker.evaluate(marker_environment):
            continue
        if (seen := pins.setdefault(pin.name, pin.version)) != pin.version:
            raise EnvironmentBuildError(
                f"environment {Path(lock).parent.name!r}: {lock} pins {pin.name} at {seen} and {pin.version}")
    return pins


def direct_pins(requirements_in: Path) -> dict[str, str]:
    """``{canonical name: version}`` of a ``requirements.in``, which may hold only exact pins and comments."""
    requirements_in = Path(requirements_in)
    pins: dict[str, str] = {}
    for number, line in enumerate(requirements_in.read_text(encoding="utf-8").splitlines(), start=1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        pin = _exact_pin(text)
        where = f"environment {requirements_in.parent.name!r}: {requirements_in} line {number}"
        if pin is None:
            raise EnvironmentBuildError(f"{where}: not an exact 'name==version' pin: {line.strip()!r}")
        if pin.name in pins:
            raise EnvironmentBuildError(f"{where}: {pin.name} pinned twice")
        pins[pin.name] = pin.version
    return pins


def check_root_dependencies(column: str, pins: Mapping[str, str]) -> None:
    """Refuse pins missing a core dependency of the root project (installed without them) or outside its range."""
    declared = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    problems = []
    for requirement in map(Requirement, declared):
        name = canonicalize_name(requirement.name)
        if name not in pins:
            problems.append(f"{name} ({requirement.specifier or 'any version'}) is not pinned")
        elif not requirement.specifier.contains(pins[name], prereleases=True):
            problems.append(f"{name}=={pins[name]} does not satisfy {str(requirement.specifier)!r}")
    if problems:
        raise EnvironmentBuildError(
            f"environment {column!r}: the lock must pin the root project's core dependencies "
            "(pyproject.toml [project].dependencies): " + "; ".join(problems)
        )


# --------------------------------------------------------------------------- running uv and the environment


def run_checked(column: str, command: list[str], what: str, cwd: Path) -> str:
    """Run ``command`` in a cleaned environment; its stdout, or an error naming ``what`` and stderr's tail."""
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED_ENV_VARS}
    env.update(UV_PYTHON_DOWNLOADS="never", UV_NO_PROGRESS="1")
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, timeout=TIMEOUT_SECONDS)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise EnvironmentBuildError(f"environment {column!r}: {what}: {exc}") from exc
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-25:]) or "(no output)"
        raise EnvironmentBuildError(f"environment {column!r}: {what} failed (exit {done.returncode}):\n{tail}")
    return done.stdout


def find_uv() -> tuple[list[str], str]:
    """The command that runs uv (``uv`` on PATH, else ``python -m uv``) and its version string."""
    for command in [[path] for path in [shutil.which("uv")] if path] + [[sys.executable, "-m", "uv"]]:
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            done = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=60)
            if done.returncode == 0:
                return command, done.stdout.strip()
    raise EnvironmentBuildError(
        "uv builds the frameworks' isolated environments and was found neither on PATH nor as `python -m uv`: "
        "install it with `pip install uv` (it is in the project's dev extra: `pip install -e '.[dev]'`)"
    )


# Runs inside the environment, which holds only what its lock pins: standard library only.
_PROBE = """
import importlib.metadata, importlib.util, json, sys
harness = importlib.util.find_spec("harness")
json.dump({"distributions": [[d.metadata["Name"], d.version] for d in importlib.metadata.distributions()],
           "harness": harness and harness.origin}, sys.stdout)
"""


def verify_versions(column: str, expected: Mapping[str, str], installed: Mapping[str, str]) -> dict[str, str]:
    """Refuse unless every expected pin is installed at exactly its version; return the verified versions."""
    wanted = {canonicalize_name(name): version for name, version in expected.items()}
    have = {canonicalize_name(name): version for name, version in installed.items()}
    wrong = [f"{name} (lock {version}, installed {have.get(name, 'nothing')})"
             for name, version in sorted(wanted.items()) if have.get(name) != version]
    if wrong:
        raise EnvironmentBuildError(f"environment {column!r} does not match its lock: " + "; ".join(wrong))
    return dict(sorted(wanted.items()))


def _verify(column: str, python: Path, expected: Mapping[str, str]) -> None:
    """Check, inside the environment (``python -I``), the installed versions and where ``harness`` comes from."""
    report = json.loads(run_checked(column, [str(python), "-I", "-c", _PROBE], "reading its versions", python.parent))
    installed: dict[str, str] = {}
    for name, version in report["distributions"]:
        if (seen := installed.setdefault(canonicalize_name(name), version)) != version:
            raise EnvironmentBuildError(f"environment {column!r}: {name} is installed at both {seen} and {version}")
    verify_versions(column, expected, installed)
    if report["harness"] is None or not Path(report["harness"]).resolve().is_relative_to(REPO_ROOT):
        raise EnvironmentBuildError(
            f"environment {column!r}: 'harness' resolves to {report['harness']}, not into the repository {REPO_ROOT} "
            "(the root project must be installed editable)"
        )


# --------------------------------------------------------------------------- cache


def environment_key(lock_bytes: bytes, python_version: tuple[int, int] | None = None) -> str:
    """The cache key: sha256 of ``python <major>.<minor>\\n`` followed by the lock's bytes."""
    major, minor = python_version or sys.version_info[:2]
    return hashlib.sha256(f"python {major}.{minor}\n".encode() + lock_bytes).hexdigest()


def cache_root_path(cache_root: Path | None = None) -> Path:
    """The cache root: the argument, else ``$AGENT_BENCH_ENV_CACHE``, else ``<repo>/.cache/envs``."""
    return Path(cache_root or os.environ.get(CACHE_ENV_VAR) or REPO_ROOT / ".cache" / "envs").expanduser().resolve()


def _fingerprint(key: str) -> dict[str, str]:
    """What a cached environment must still match to be reused.

    ``root_project``: setuptools' editable finder maps the top-level packages that existed at install time.
    ``interpreter``: markers are evaluated here, with this interpreter's marker environment, not inside.
    """
    digest = hashlib.sha256((REPO_ROOT / "pyproject.toml").read_bytes())
    for package in sorted(p.name for p in REPO_ROOT.iterdir() if (p / "__init__.py").is_file()):
        digest.update(b"\0" + package.encode())
    return {"lock": key, "repository": str(REPO_ROOT), "root_project": digest.hexdigest(),
            "interpreter": str(Path(sys.executable).resolve())}


def _stale_reason(column: str, path: Path, fingerprint: Mapping[str, str], expected: Mapping[str, str]) -> str | None:
    """Why the cached environment at ``path`` cannot be reused, or None when it can."""
    try:
        recorded = json.loads((path / MARKER_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "incomplete: no record of a finished build"
    changed = [field for field, value in fingerprint.items() if recorded.get(field) != value]
    if changed:
        return "built for another " + ", ".join(changed)
    try:
        _verify(column, path / "bin" / "python", expected)
    except EnvironmentBuildError as exc:
        return str(exc)
    return None


@contextlib.contextmanager
def build_lock(final: Path) -> Iterator[None]:
    """Hold ``<final>.lock`` (``flock``): the processes of one machine that need one environment (a sweep's column
    processes, a Ray node's tasks) build it once; the others wait, then reuse it."""
    final.parent.mkdir(parents=True, exist_ok=True)
    with os.fdopen(os.open(final.with_name(f"{final.name}.lock"), os.O_RDONLY | os.O_CREAT, 0o644), "rb") as handle:  # any user may lock it
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes, or its process dies
        yield


def pin_version(column: Column) -> str:
    """The version a column runs at: its extra pin's, else the default pin's, which is the version of the first
    requirement of its ``requirements.in`` (the framework's own package, by the adapters' convention)."""
    if column.pin:
        return column.pin
    pins = direct_pins(column.environment_dir / REQUIREMENTS_IN_NAME)
    if not pins:
        raise EnvironmentBuildError(f"environment {column.name!r}: its requirements.in pins nothing to name its version")
    return next(iter(pins.values()))


def column_at(columns: Mapping[str, Column], adapter: str, version: str) -> Column:
    """The column of ``adapter`` that runs at ``version`` (its default pin or an extra one); KeyError naming the pins."""
    found = {pin_version(c): c for c in columns.values() if c.adapter == adapter and c.environment == "isolated"}
    if version not in found:
        raise KeyError(f"{adapter} has no pin {version} (its pins: {', '.join(sorted(found)) or 'none'})")
    return found[version]


def column_environment(column: Column, **options: Any) -> Environment:
    """:func:`ensure_environment` of a column: its lock's folder (``pins/<version>/`` for an extra pin), its name."""
    return ensure_environment(column.environment_dir, name=column.name, **options)


def ensure_environment(
    adapter_dir: Path, *, name: str | None = None, cache_root: Path | None = None, rebuild: bool = False,
    log: Callable[[str], None] = print,
) -> Environment:
    """Build (or reuse) the isolated environment whose ``requirements.lock`` is in ``adapter_dir``, for the column
    ``name`` (default: the folder's name).

    See the module docstring for the steps and the cache. Raises :class:`EnvironmentBuildError`
    naming the column and what failed.
    """
    adapter_dir = Path(adapter_dir).resolve()
    column, lock = name or adapter_dir.name, adapter_dir / LOCK_NAME
    if not lock.is_file():
        raise EnvironmentBuildError(f"environment {column!r}: no lock at {lock} (scripts/lock_environment.py makes it)")
    expected = lock_pins(lock, marker_environment=default_environment())  # also refuses anything but hashed pins
    check_root_dependencies(column, expected)
    key = environment_key(lock.read_bytes())
    fingerprint = _fingerprint(key)
    cache = cache_root_path(cache_root)
    final = cache / f"{column}-{key[:16]}"
    versions = dict(sorted(expected.items()))  # what is installed, once _verify has passed

    with build_lock(final):  # one build per machine: a process that waited reuses what the first built
        if final.exists():
            reason = "rebuild requested" if rebuild else _stale_reason(column, final, fingerprint, expected)
            if reason is None:
                log(f"reusing cached environment {column!r} at {final} (key {key[:16]})")
                os.chmod(final, 0o755)  # one built before column users existed kept mkdtemp's 0700
                return Environment(column, final / "bin" / "python", key, versions, True, final)
            log(f"cached environment {column!r} at {final} cannot be reused ({reason}); deleting and rebuilding")
            shutil.rmtree(final)

        uv, uv_version = find_uv()
        cache.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{final.name}.build-", dir=cache))  # same file system: rename is atomic
        os.chmod(staging, 0o755)  # readable like any installed package: as root a column runs under a user of its own
        python = staging / "bin" / "python"
        install = [*uv, "pip", "install", "--python", str(python), "--no-deps"]
        log(f"building environment {column!r} with {uv_version} from {lock} (key {key[:16]}) into {final}")
        try:
            run_checked(column, [*uv, "venv", "--quiet", "--no-project", "--relocatable", "--python", sys.executable,
                                 str(staging)], "creating the virtual environment (uv venv)", cache)
            run_checked(column, [*install, "--require-hashes", "--no-build", "--strict", "-r", str(lock)],
                        f"installing the hashed lock {lock.name} (uv pip install --require-hashes --no-deps)", cache)
            run_checked(column, [*install, "-e", str(REPO_ROOT)], "installing the root project (uv pip install -e)", cache)
            _verify(column, python, expected)
            record = {**fingerprint, "name": column, "uv": uv_version, "versions": versions}
            (staging / MARKER_NAME).write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
            try:
                os.rename(staging, final)
            except OSError as exc:  # a concurrent build of the same lock got there first: take theirs if it checks out
                if _stale_reason(column, final, fingerprint, expected) is not None:
                    raise EnvironmentBuildError(f"environment {column!r}: cannot move the build to {final}: {exc}") from exc
        finally:
            shutil.rmtree(staging, ignore_errors=True)  # gone once renamed; a failed build leaves nothing behind
        log(f"built environment {column!r} at {final}: {len(versions)} pinned packages verified")
        return Environment(column, final / "bin" / "python", key, versions, False, final)
