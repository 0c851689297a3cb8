"""Finding the binderyd executable."""
from __future__ import annotations

import os
import shutil
from typing import List, Mapping, Optional, Sequence

from .errors import DaemonNotFound

__all__ = ["find_daemon", "repository_build_dirs", "user_bin_dir", "ENV_VAR", "EXECUTABLE"]

ENV_VAR = "BINDERYD"
EXECUTABLE = "binderyd"


def user_bin_dir(env: Optional[Mapping[str, str]] = None) -> Optional[str]:
    """``$HOME/.local/bin``, where ``scripts/install`` puts binderyd; None when HOME is not set."""
    home = (os.environ if env is None else env).get("HOME")
    return os.path.join(home, ".local", "bin") if home else None


def repository_build_dirs() -> List[str]:
    """The Swift build folders of the repository this package sits in (clients/python/bindery).

    Empty when the package is installed (pip copies it away from the repository): only a checkout
    has a build folder next to it.
    """
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
    if not os.path.isfile(os.path.join(root, "Package.swift")):
        return []
    return [os.path.join(root, ".build", "release"), os.path.join(root, ".build", "debug")]


def _usable(path: str) -> Optional[str]:
    """Why ``path`` cannot be run, or None when it can."""
    if not os.path.exists(path):
        return "does not exist"
    if os.path.isdir(path):
        return "is a directory"
    if not os.access(path, os.X_OK):
        return "is not executable"
    return None


def find_daemon(explicit: Optional[str] = None, *, env: Optional[Mapping[str, str]] = None,
                search_path: Optional[str] = None,
                build_dirs: Optional[Sequence[str]] = None) -> str:
    """The path of binderyd: ``explicit``, else $BINDERYD, else PATH, else ~/.local/bin, else the
    repository's build (when this package sits in the repository, not installed).

    An explicit path, or a $BINDERYD that is set, is used or refused — never silently replaced by
    some other (perhaps stale) daemon. PATH, ``$HOME/.local/bin/binderyd`` (where
    ``scripts/install`` copies it) and the build folders are tried in turn. DaemonNotFound lists
    every place tried and why each failed, and says to run ``./scripts/install``. ``env``
    (whose HOME and PATH count), ``search_path`` and ``build_dirs`` replace the real environment,
    for tests.
    """
    if explicit is not None:
        # A bare name ("binderyd") is looked up on PATH, as subprocess would, then in ~/.local/bin
        # (where scripts/install puts it, often not on a new user's PATH yet).
        user_bin = user_bin_dir(env)
        path = explicit if os.sep in explicit else (
            shutil.which(explicit, path=search_path)
            or (user_bin and shutil.which(explicit, path=user_bin)) or explicit)
        problem = _usable(path)
        if problem is None:
            return os.path.abspath(path)
        raise DaemonNotFound(["daemon argument %r: %s" % (explicit, problem)])

    environment = os.environ if env is None else env
    from_env = environment.get(ENV_VAR)
    if from_env:
        problem = _usable(from_env)
        if problem is None:
            return os.path.abspath(from_env)
        raise DaemonNotFound(["$%s=%r: %s (unset it to search PATH, ~/.local/bin and the repository's build)"
                              % (ENV_VAR, from_env, problem)])
    tried: List[str] = ["$%s: not set" % ENV_VAR]

    path_value = environment.get("PATH", os.defpath) if search_path is None else search_path
    on_path = shutil.which(EXECUTABLE, path=path_value)
    if on_path:
        return os.path.abspath(on_path)
    tried.append("PATH (%s): no %s" % (path_value, EXECUTABLE))

    user_bin = user_bin_dir(environment)
    folders = [user_bin] if user_bin else []
    folders += repository_build_dirs() if build_dirs is None else build_dirs
    for folder in folders:
        candidate = os.path.join(folder, EXECUTABLE)
        problem = _usable(candidate)
        if problem is None:
            return candidate
        tried.append("%s: %s" % (candidate, problem))
    raise DaemonNotFound(tried)
