"""Held keys: one delivery of a key at a time across processes, and a dead holder holds nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from handwritten.key_locks import KeyLocks
from handwritten.private_files import private_directory

ROOT = Path(__file__).resolve().parents[2]

HOLDER = """
import sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from handwritten.key_locks import KeyLocks
locks = KeyLocks(Path(sys.argv[2]))
with locks.hold(sys.argv[3]) as held:
    print("held" if held else "not held", flush=True)
    time.sleep(60)
"""


def test_a_key_held_by_another_process_is_not_held_here_until_that_process_dies(tmp_path: Path) -> None:
    path = private_directory(tmp_path / "s1") / "inflight.lock"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(ROOT), str(path), "k1"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        locks = KeyLocks(path)
        with locks.hold("k1") as held:
            assert not held
        with locks.hold("k2") as held:  # another key is free
            assert held
        holder.send_signal(signal.SIGKILL)  # the kernel drops a dead process's locks
        holder.wait(10)
        with locks.hold("k1") as held:
            assert held
        locks.close()
    finally:
        holder.kill()
        holder.wait()


def held_elsewhere(path: Path, key: str) -> bool:
    """Whether another process finds ``key`` held (the kernel's record lock, not this process's bookkeeping)."""
    done = subprocess.run([sys.executable, "-c", HOLDER.replace("time.sleep(60)", "pass"), str(ROOT), str(path), key], capture_output=True, text=True, check=True)
    return done.stdout.strip() == "not held"


def test_in_one_process_a_key_is_held_once_across_threads_and_instances(tmp_path: Path) -> None:
    path = private_directory(tmp_path / "s1") / "inflight.lock"
    first, second = KeyLocks(path), KeyLocks(path)
    seen: list[bool] = []
    with first.hold("k1") as held:
        assert held
        thread = threading.Thread(target=lambda: seen.append(second.hold("k1").__enter__()))
        thread.start()
        thread.join()
        second.close()  # closing another instance must not drop this hold: one descriptor per file and process
        second.close()  # nor closing it twice
        third = KeyLocks(path)
        third.close()
        assert held_elsewhere(path, "k1")
    assert seen == [False]
    assert not held_elsewhere(path, "k1")
    with first.hold("k1") as held:
        assert held
    first.close()


def test_a_forked_child_holds_nothing_of_its_parents_but_cannot_take_what_the_parent_holds(tmp_path: Path) -> None:
    path = private_directory(tmp_path / "s1") / "inflight.lock"
    locks = KeyLocks(path)
    with locks.hold("k1") as held:
        assert held
        pid = os.fork()
        if pid == 0:  # the child: its bookkeeping is empty, and the parent's kernel lock still stands
            with locks.hold("k1") as child_held, locks.hold("k2") as other:
                os._exit(0 if (not child_held and other) else 1)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    locks.close()
