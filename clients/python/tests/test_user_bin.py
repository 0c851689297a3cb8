"""~/.local/bin/binderyd, where scripts/install copies the daemon, is searched after PATH."""
from __future__ import annotations

import os
import stat
from typing import Any

import pytest

from bindery import DaemonNotFound, find_daemon


def fake_daemon(folder: Any) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "binderyd"
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_user_bin_comes_after_path_and_before_the_build(tmp_path: Any) -> None:
    home = tmp_path / "home"
    installed = fake_daemon(home / ".local" / "bin")
    on_path = fake_daemon(tmp_path / "bin")
    built = fake_daemon(tmp_path / ".build" / "debug")
    dirs = [str(tmp_path / ".build" / "debug")]
    env = {"HOME": str(home)}
    assert find_daemon(env=env, search_path=str(tmp_path / "bin"), build_dirs=dirs) == on_path
    assert find_daemon(env=env, search_path=str(tmp_path / "empty"), build_dirs=dirs) == installed
    assert find_daemon(env={"HOME": str(tmp_path / "nohome")}, search_path="", build_dirs=dirs) == built


def test_not_found_names_user_bin_and_scripts_install(tmp_path: Any) -> None:
    home = tmp_path / "home"
    with pytest.raises(DaemonNotFound) as caught:
        find_daemon(env={"HOME": str(home)}, search_path=str(tmp_path / "nobin"), build_dirs=[])
    error = caught.value
    assert error.tried[-1] == os.path.join(str(home), ".local", "bin", "binderyd") + ": does not exist"
    assert "`./scripts/install`" in str(error) and "~/.local/bin" in str(error)
    assert "swift build" not in str(error)
