"""Finding binderyd: explicit path, $BINDERYD, PATH, then the repository's build folders."""
from __future__ import annotations

import os
import stat
from typing import Any

import pytest

from bindery import Client, DaemonNotFound, find_daemon
from bindery.discovery import repository_build_dirs


def fake_daemon(folder: Any, name: str = "binderyd") -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_explicit_path_wins(tmp_path: Any) -> None:
    explicit = fake_daemon(tmp_path / "a")
    other = fake_daemon(tmp_path / "b")
    assert find_daemon(explicit, env={"BINDERYD": other}) == explicit


def test_an_explicit_path_that_does_not_exist_is_an_error_not_a_fallback(tmp_path: Any) -> None:
    other = fake_daemon(tmp_path / "b")
    with pytest.raises(DaemonNotFound) as caught:
        find_daemon(str(tmp_path / "nope"), env={"BINDERYD": other})
    assert "nope" in str(caught.value) and "does not exist" in str(caught.value)


def test_environment_variable_then_path_then_build(tmp_path: Any) -> None:
    from_env = fake_daemon(tmp_path / "env")
    on_path = fake_daemon(tmp_path / "bin")
    built = fake_daemon(tmp_path / ".build" / "debug")
    dirs = [str(tmp_path / ".build" / "release"), str(tmp_path / ".build" / "debug")]
    assert find_daemon(env={"BINDERYD": from_env}, search_path=str(tmp_path / "bin"), build_dirs=dirs) == from_env
    assert find_daemon(env={}, search_path=str(tmp_path / "bin"), build_dirs=dirs) == on_path
    assert find_daemon(env={}, search_path=str(tmp_path / "empty"), build_dirs=dirs) == built


def test_not_found_lists_every_place_tried(tmp_path: Any) -> None:
    dirs = [str(tmp_path / "release"), str(tmp_path / "debug")]
    with pytest.raises(DaemonNotFound) as caught:
        find_daemon(env={}, search_path=str(tmp_path / "nobin"), build_dirs=dirs)
    error = caught.value
    assert len(error.tried) == 4
    text = str(error)
    assert "$BINDERYD: not set" in text
    assert "PATH (%s)" % (tmp_path / "nobin") in text
    assert os.path.join(dirs[0], "binderyd") + ": does not exist" in text
    assert os.path.join(dirs[1], "binderyd") + ": does not exist" in text


def test_a_broken_environment_variable_is_an_error_not_a_fallback(tmp_path: Any) -> None:
    not_executable = tmp_path / "plain"
    not_executable.write_text("")
    built = fake_daemon(tmp_path / "debug")
    with pytest.raises(DaemonNotFound) as caught:
        find_daemon(env={"BINDERYD": str(not_executable)}, search_path="", build_dirs=[str(tmp_path / "debug")])
    assert "is not executable" in str(caught.value) and built not in str(caught.value)


def test_repository_build_dirs_are_next_to_the_package() -> None:
    release, debug = repository_build_dirs()
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
    assert release == os.path.join(root, ".build", "release")
    assert debug == os.path.join(root, ".build", "debug")


def test_client_uses_the_environment_variable(daemon_path: str, monkeypatch: Any) -> None:
    monkeypatch.setenv("BINDERYD", daemon_path)
    with Client() as client:
        assert client.daemon_path == os.path.abspath(daemon_path)
        assert client.server_info["name"] == "binderyd"


def test_client_raises_daemon_not_found(tmp_path: Any) -> None:
    with pytest.raises(DaemonNotFound):
        Client(str(tmp_path / "missing"))


def test_an_explicit_bare_name_is_looked_up_on_path_then_in_home_local_bin(tmp_path: Any) -> None:
    # scripts/install puts the programs in ~/.local/bin, often not on a new user's PATH yet.
    installed = fake_daemon(tmp_path / "home" / ".local" / "bin", "bindery-installed")
    on_path = fake_daemon(tmp_path / "bin", "bindery-installed")
    env = {"HOME": str(tmp_path / "home")}
    assert find_daemon("bindery-installed", env=env, search_path=str(tmp_path / "empty")) == installed
    assert find_daemon("bindery-installed", env=env, search_path=str(tmp_path / "bin")) == on_path
