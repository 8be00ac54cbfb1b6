"""Private state: what a tool boundary keeps its grants and records in is this user's alone, or it is refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from handwritten.private_files import UntrustedPath, private_directory, private_file, read_private, secret, write_private


def mode(path: Path) -> int:
    return os.lstat(path).st_mode & 0o777


def test_a_missing_directory_is_made_private_and_a_readable_one_of_ours_is_tightened(tmp_path: Path) -> None:
    made = private_directory(tmp_path / "state")
    assert mode(made) == 0o700
    readable = tmp_path / "readable"
    readable.mkdir(mode=0o755)
    os.chmod(readable, 0o755)
    assert mode(private_directory(readable)) == 0o700


@pytest.mark.parametrize("why", ["writable by group", "writable by others", "a symlink", "a file", "parent writable by others"])
def test_a_directory_someone_else_could_write_is_refused_with_its_name(tmp_path: Path, why: str) -> None:
    target = tmp_path / "state"
    match why:
        case "writable by group" | "writable by others":
            target.mkdir()
            os.chmod(target, 0o770 if why == "writable by group" else 0o707)
        case "a symlink":
            (tmp_path / "real").mkdir(mode=0o700)
            target.symlink_to(tmp_path / "real")
        case "a file":
            target.write_text("x")
        case "parent writable by others":
            shared = tmp_path / "shared"
            shared.mkdir()
            os.chmod(shared, 0o777)  # no sticky bit: anyone could rename state away and put their own in its place
            target = shared / "state"
    with pytest.raises(UntrustedPath, match=str(target)):
        private_directory(target)


def test_a_sticky_world_writable_parent_is_fine(tmp_path: Path) -> None:
    shared = tmp_path / "tmp-like"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    assert mode(private_directory(shared / "state")) == 0o700


def test_files_are_private_and_never_followed_through_a_symlink(tmp_path: Path) -> None:
    directory = private_directory(tmp_path / "state")
    assert mode(private_file(directory / "records.sqlite")) == 0o600
    (tmp_path / "elsewhere").write_text("planted")
    (directory / "link").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(UntrustedPath, match="link"):
        private_file(directory / "link")
    with pytest.raises(UntrustedPath, match="link"):
        read_private(directory / "link")
    writable = directory / "writable"
    writable.write_text("x")
    os.chmod(writable, 0o666)
    with pytest.raises(UntrustedPath, match="writable"):
        read_private(writable)


def test_write_private_replaces_the_file_whole_and_secret_is_made_once(tmp_path: Path) -> None:
    directory = private_directory(tmp_path / "state")
    write_private(directory / "session", "s1\n")
    write_private(directory / "session", "s2\n")
    assert read_private(directory / "session") == "s2\n" and mode(directory / "session") == 0o600
    first = secret(directory / "grant.key")
    assert secret(directory / "grant.key") == first and len(first) == 64 and mode(directory / "grant.key") == 0o600
    assert sorted(p.name for p in directory.iterdir()) == ["grant.key", "session"]  # no temporary file left behind
    (directory / "bad.key").write_text("short")
    os.chmod(directory / "bad.key", 0o600)
    with pytest.raises(UntrustedPath, match="bad.key"):
        secret(directory / "bad.key")


def test_a_directory_another_user_could_swap_out_from_higher_up_is_refused(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to make a directory another user owns (CI runs as root)")
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o755)
    os.chown(theirs, 65534, 65534)  # they may rename what is inside, however deep, and put their own in its place
    (theirs / "ours").mkdir(mode=0o700)
    with pytest.raises(UntrustedPath, match=str(theirs)):
        private_directory(theirs / "ours" / "state")


def test_a_symlink_of_another_users_on_the_way_is_refused(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to make a symlink another user owns (CI runs as root)")
    sticky = tmp_path / "pub"
    sticky.mkdir()
    os.chmod(sticky, 0o1777)
    (tmp_path / "real").mkdir(mode=0o700)
    link = sticky / "foo"
    link.symlink_to(tmp_path / "real")
    os.lchown(link, 65534, 65534)  # in a sticky directory its owner may replace it with a link to anywhere
    with pytest.raises(UntrustedPath, match="foo"):
        private_directory(link / "state")


def test_a_fifo_or_undecodable_text_where_a_private_file_belongs_is_refused_at_once(tmp_path: Path) -> None:
    directory = private_directory(tmp_path / "state")
    os.mkfifo(directory / "grant.key", 0o600)
    with pytest.raises(UntrustedPath, match="not a regular file"):
        secret(directory / "grant.key")
    (directory / "session").write_bytes(b"\xff\xfe")
    os.chmod(directory / "session", 0o600)
    with pytest.raises(UntrustedPath, match="not text"):
        read_private(directory / "session")


def test_nothing_is_created_under_a_directory_another_user_owns(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to make a directory another user owns (CI runs as root)")
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o777)
    os.chown(theirs, 65534, 65534)
    with pytest.raises(UntrustedPath, match=str(theirs)):
        private_directory(theirs / "a" / "state")
    assert list(theirs.iterdir()) == []  # refused before anything was made inside
