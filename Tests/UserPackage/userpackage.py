"""A package of a user's own that depends on Bindery **by version**, as a Swift developer adds it:

    .package(url: "file://<a git repository of this checkout>", from: "0.1.0")

`release()` makes that repository: this checkout's files (what git tracks and what it would, so
uncommitted work is tested too) committed afresh and tagged `0.1.0`, in `.build/user-package/bindery.git`.
`package()` writes `.build/user-package/app` (its Package.swift is the README's, app/Package.swift, with
the release's URL), with a daemon of its own (`appdaemon`) whose view
models are written as an app writes them: one is written from other threads (`nonisolated`
methods, a detached task, plain threads), for the stress test. Both stay between runs, so the
package's own `.build` (Bindery compiled once, in debug, linked dynamically as `swift build` does)
is reused.

    python3 Tests/UserPackage/userpackage.py build [release]   # (re)writes both, builds, prints the daemon's path
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOME = ROOT / ".build" / "user-package"
REPOSITORY = HOME / "bindery.git"
APP = HOME / "app"
VERSION = "0.1.0"
HERE = Path(__file__).resolve().parent

#: The URL the README's Package.swift names, replaced by the local release's.
README_URL = "https://example.com/your-clone-of/bindery.git"


def _git(*arguments, cwd):
    subprocess.run(["git", *arguments], cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def release():
    """This checkout as a tagged git repository; the tag moves to the new commit when files changed."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            check=True, capture_output=True).stdout.split(b"\0")
    if REPOSITORY.exists():
        shutil.rmtree(REPOSITORY)
    REPOSITORY.mkdir(parents=True)
    for name in filter(None, listed):
        source = ROOT / os.fsdecode(name)
        if not source.is_file():
            continue  # deleted in the work tree
        target = REPOSITORY / os.fsdecode(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    _git("init", "-q", "-b", "main", cwd=REPOSITORY)
    _git("add", "-A", cwd=REPOSITORY)
    _git("-c", "user.name=Bindery tests", "-c", "user.email=tests@bindery.invalid", "commit", "-q", "-m", "release",
         cwd=REPOSITORY)
    _git("tag", VERSION, cwd=REPOSITORY)
    return REPOSITORY


def package():
    """The user's package: Package.swift depending on the release by version, and its sources."""
    sources = APP / "Sources" / "appdaemon"
    if sources.exists():
        shutil.rmtree(sources)
    sources.mkdir(parents=True)
    manifest = (HERE / "app" / "Package.swift").read_text()
    assert README_URL in manifest
    (APP / "Package.swift").write_text(manifest.replace(README_URL, "file://" + str(REPOSITORY)))
    for name in ("main.swift", "FeedViewModel.swift", "SignUpViewModel.swift", "EmailViewModel.swift"):
        shutil.copy2(HERE / "app" / name, sources / name)
    return APP


def build(configuration="debug"):
    """Builds the user's daemon as the user would (`swift build`), re-resolving the release."""
    release()
    package()
    # The release was re-made, its tag on a new commit: forget the old resolution and clone, as a
    # user's fresh checkout would resolve it (what was compiled stays, and is reused where unchanged).
    (APP / "Package.resolved").unlink(missing_ok=True)
    for cached in ("checkouts", "repositories"):
        shutil.rmtree(APP / ".build" / cached, ignore_errors=True)
    (APP / ".build" / "workspace-state.json").unlink(missing_ok=True)
    # No shared cache of clones: it would hold the last release under the same tag.
    result = subprocess.run(["swift", "build", "--disable-dependency-cache", "-c", configuration, "--product", "appdaemon"], cwd=APP,
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError("the user's package did not build:\n" + result.stdout[-4000:] + result.stderr[-4000:])
    return APP / ".build" / configuration / "appdaemon"


if __name__ == "__main__":
    if sys.argv[1:2] == ["build"] and len(sys.argv) <= 3:
        print(build(*sys.argv[2:]))
    else:
        sys.exit(__doc__)
