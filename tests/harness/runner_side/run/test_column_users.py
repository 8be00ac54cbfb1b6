"""Column processes under users of their own (``harness.runner_side.run.users``): a process started by ``run_watched`` under
one column user can neither read nor write another column user's private directory, nor signal that user's processes
or the runner; ``preflight`` names a path the column user cannot read, and passes a readable one.

Only root can start a process under another user: elsewhere these tests skip, except in CI (``CI=true``, where
``.ci/run`` runs as root and grants the traverse bit the column users need), where a skip is a failure."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.errors import HarnessError
from harness.runner_side.run.processes import run_watched
from harness.runner_side.run.users import ColumnUser, claim_user, preflight, private_dir, read_column_file, separation_applies, traversable

PYTHON = Path(sys.executable)


def _unavailable(reason: str) -> None:
    """Skip, or fail in CI: there the separation these tests show must be in force."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"a skipped column-user test fails in CI (CI=true): {reason}")
    pytest.skip(reason)


@pytest.fixture
def users() -> tuple[ColumnUser, ColumnUser]:
    """Two column users that can run this interpreter."""
    if not separation_applies():
        _unavailable("column users need root (the runner gives columns users of their own only as root)")
    first, second = claim_user(), claim_user()
    if problem := preflight(first, PYTHON):
        _unavailable(problem)
    return first, second


@pytest.fixture
def run_dir() -> Iterator[Path]:
    """A directory of the runner for one test, as the CLI makes its scratch: a mkdtemp made traversable (0711)."""
    directory = traversable(Path(tempfile.mkdtemp(prefix="column-users-")))
    yield directory
    shutil.rmtree(directory)


def _as(user: ColumnUser, program: str, cwd: Path, *args: str) -> Any:
    """What ``program`` (a ``python -c`` child started by ``run_watched`` under ``user``) printed as its last line, as JSON."""
    done = run_watched([str(PYTHON), "-I", "-c", program, *args], env={"PATH": "/usr/bin:/bin"}, cwd=cwd, timeout_s=30, on_progress=lambda _: None,
                       user=user)  # fmt: skip
    assert done.returncode == 0, done.tail
    return json.loads(done.tail[-1])


# Each attempt's outcome: "ok" or the exception's type.
ATTEMPTS = """
import json, os, sys
def attempt(action):
    try:
        action()
        return "ok"
    except OSError as exc:
        return type(exc).__name__
def write(path):
    with open(path, "w") as file:
        file.write("x")
def signal_(pid):
    os.kill(int(pid), 0)  # signal 0: the permission check alone, nothing delivered
own, other, pid_other, pid_runner = sys.argv[1:]
print(json.dumps({
    "ids": f"{os.getuid()}:{os.getgid()}:{os.getgroups()}",
    "write own": attempt(lambda: write(os.path.join(own, "mine"))),
    "read other": attempt(lambda: open(os.path.join(other, "secret")).read()),
    "list other": attempt(lambda: os.listdir(other)),
    "write other": attempt(lambda: write(os.path.join(other, "secret"))),
    "create in other": attempt(lambda: write(os.path.join(other, "planted"))),
    "signal other": attempt(lambda: signal_(pid_other)),
    "signal runner": attempt(lambda: signal_(pid_runner)),
    "runner's environment": attempt(lambda: open(f"/proc/{pid_runner}/environ", "rb").read()),
    "other's memory": attempt(lambda: open(f"/proc/{pid_other}/mem", "rb").read(1)),
}))
"""


def test_a_column_user_cannot_touch_another_columns_files_nor_signal_it_or_the_runner(users: tuple[ColumnUser, ColumnUser], run_dir: Path) -> None:
    a, b = users
    own, other = private_dir(run_dir / "columns" / "a", a), private_dir(run_dir / "columns" / "b", b)
    (other / "secret").write_text("b's", encoding="utf-8")
    os.chown(other / "secret", b.uid, b.gid)
    sibling = subprocess.Popen([str(PYTHON), "-I", "-c", "import time; time.sleep(60)"], cwd=other, user=b.uid, group=b.gid, extra_groups=[])
    try:
        seen = _as(a, ATTEMPTS, own, str(own), str(other), str(sibling.pid), str(os.getpid()))
    finally:
        sibling.kill()
        sibling.wait()
    assert seen == {
        "ids": f"{a.uid}:{a.gid}:[]",
        "write own": "ok",
        "read other": "PermissionError",
        "list other": "PermissionError",
        "write other": "PermissionError",
        "create in other": "PermissionError",
        "signal other": "PermissionError",
        "signal runner": "PermissionError",
        "runner's environment": "PermissionError",
        "other's memory": "PermissionError",
    }
    assert (other / "secret").read_text(encoding="utf-8") == "b's" and not (other / "planted").exists()


def test_private_dirs_are_the_users_alone_inside_parents_that_cannot_be_listed(users: tuple[ColumnUser, ColumnUser], run_dir: Path) -> None:
    a, _ = users
    own = private_dir(run_dir / "columns" / "a", a)
    assert (own.stat().st_uid, own.stat().st_gid, own.stat().st_mode & 0o777) == (a.uid, a.gid, 0o700)
    assert [oct(p.stat().st_mode & 0o777) for p in (run_dir, run_dir / "columns")] == ["0o711", "0o711"]
    seen = _as(a, "import json, os, sys; print(json.dumps(sorted(os.listdir(sys.argv[1])) if os.access(sys.argv[1], os.R_OK) else 'refused'))", own,
               str(run_dir / "columns"))  # fmt: skip
    assert seen == "refused"


def test_the_runner_still_kills_a_column_users_process_group_at_its_timeout(users: tuple[ColumnUser, ColumnUser], run_dir: Path) -> None:
    a, _ = users
    own = private_dir(run_dir / "a", a)
    # A worker forked into the same group, as a column's are, that says its pid before both sleep.
    program = "import os, time\nif os.fork() == 0:\n    print('PROGRESS', os.getpid(), flush=True)\ntime.sleep(60)"
    workers: list[str] = []
    done = run_watched([str(PYTHON), "-I", "-c", program], env={}, cwd=own, timeout_s=2, on_progress=workers.append, user=a)
    assert (done.timed_out, done.returncode, len(workers)) == (True, -signal.SIGKILL, 1)
    assert _gone(int(workers[0]))


def _gone(pid: int, within_s: float = 10.0) -> bool:
    """Whether ``pid`` no longer runs within ``within_s`` (a killed process is torn down after the signal, slower on a
    loaded machine): no such process, or a zombie nobody reaped yet (a container's init may not)."""
    deadline = time.monotonic() + within_s
    while True:
        try:
            if Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()[0] == "Z":
                return True
        except FileNotFoundError:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def test_preflight_names_a_path_the_column_user_cannot_read_and_passes_a_readable_one(users: tuple[ColumnUser, ColumnUser], run_dir: Path) -> None:
    a, _ = users
    readable = run_dir / "readable"
    (readable / "package").mkdir(parents=True)
    (readable / "package" / "module.py").write_text("", encoding="utf-8")
    closed = run_dir / "closed"
    (closed / "package").mkdir(parents=True)
    os.chmod(closed, 0o700)  # root's, as a clone under a private home
    (readable / "data").mkdir()
    nested = readable / "data" / "private.json"
    nested.write_text("{}", encoding="utf-8")
    os.chmod(nested, 0o600)
    scratch = private_dir(run_dir / "columns" / "a", a)

    assert preflight(a, PYTHON, [readable / "package"], writable=[scratch]) is None
    line = preflight(a, PYTHON, [readable / "package", closed / "package"])
    assert line is not None and line.startswith(f"the column user {a.uid} cannot read {closed / 'package'}: {closed} is closed to other users")
    assert "\n" not in line and line.endswith("or run as a non-root user")
    assert preflight(a, PYTHON, [readable]) == (
        f"the column user {a.uid} cannot read {nested}: make it readable by other users (chmod -R o+rX {nested}), or clone the repository where "
        "they can read it, or run as a non-root user"
    )
    for not_its_own in (run_dir, run_dir / "missing"):
        assert (preflight(a, PYTHON, writable=[not_its_own]) or "").startswith(f"the column user {a.uid} cannot write {not_its_own}: make it the column")


def test_preflight_names_an_interpreter_the_column_user_cannot_run(users: tuple[ColumnUser, ColumnUser], run_dir: Path) -> None:
    a, _ = users
    home = run_dir / "home"
    (home / "bin").mkdir(parents=True)
    os.chmod(home, 0o700)
    python = home / "bin" / "python"
    python.symlink_to(PYTHON)
    assert preflight(a, python) == (
        f"the column user {a.uid} cannot run {python}: {home} is closed to other users: grant it the traverse bit alone (chmod o+x {home}), "
        "or run as a non-root user"
    )


def test_column_users_are_distinct_unused_and_never_shared_by_two_runners() -> None:
    import grp
    import pwd

    if not separation_applies():
        _unavailable("column users need root")
    users = [claim_user() for _ in range(3)]
    ids = [u.uid for u in users]
    assert len(set(ids)) == 3 and all(u.uid == u.gid for u in users)
    used = {e.pw_uid for e in pwd.getpwall()} | {e.gr_gid for e in grp.getgrall()}
    assert not used & set(ids)
    other = subprocess.run([sys.executable, "-c", "from harness.runner_side.run.users import claim_user; print(claim_user().uid)"],
                           capture_output=True, text=True, check=True, timeout=60)  # another runner, while this one holds its ids
    assert int(other.stdout) not in ids


def test_the_runner_reads_a_columns_output_only_as_a_regular_file_the_column_wrote(users: tuple[ColumnUser, ColumnUser], run_dir: Path) -> None:
    a, b = users
    own, other = private_dir(run_dir / "a", a), private_dir(run_dir / "b", b)
    (other / "observations.json").write_text("b's", encoding="utf-8")
    planted = _as(a, """import json, os, sys
os.symlink(os.path.join(sys.argv[2], "observations.json"), os.path.join(sys.argv[1], "observations.json"))
os.mkfifo(os.path.join(sys.argv[1], "network.jsonl"))
(lambda f: (f.write("[]"), f.close()))(open(os.path.join(sys.argv[1], "honest.json"), "w"))
print(json.dumps("planted"))""", own, str(own), str(other))
    assert planted == "planted"
    with pytest.raises(HarnessError, match="symbolic link"):
        read_column_file(own / "observations.json")  # root follows the link, and would read b's file as a's
    with pytest.raises(HarnessError, match="not a regular file"):
        read_column_file(own / "network.jsonl")  # root would wait on the FIFO for ever
    assert read_column_file(own / "honest.json") == "[]"
    with pytest.raises(FileNotFoundError):
        read_column_file(own / "missing.json")
