"""Held keys: one delivery of a key at a time across processes, and a dead holder holds nothing."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from pathlib import Path

from handwritten.key_locks import KeyLocks
from handwritten.private_files import private_directory

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
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(Path(__file__).resolve().parents[2]), str(path), "k1"], stdout=subprocess.PIPE, text=True)
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


def test_in_one_process_a_key_is_held_once_across_threads_and_instances(tmp_path: Path) -> None:
    path = private_directory(tmp_path / "s1") / "inflight.lock"
    first, second = KeyLocks(path), KeyLocks(path)
    seen: list[bool] = []
    with first.hold("k1") as held:
        assert held
        thread = threading.Thread(target=lambda: seen.append(second.hold("k1").__enter__()))
        thread.start()
        thread.join()
        second.close()  # closing another instance's descriptor must not drop this hold (one descriptor per file)
        third = KeyLocks(path)
        with third.hold("k1") as again:
            assert not again
        third.close()
    assert seen == [False]
    with first.hold("k1") as held:
        assert held
    first.close()
