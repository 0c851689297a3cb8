"""scripts/install puts bindery-web beside binderyd, its page in PREFIX/share/bindery-web, and the
installed bridge runs from anywhere (the system's python3), finding binderyd beside itself."""
from __future__ import annotations

import filecmp
import os
import subprocess
import urllib.request
from pathlib import Path

from conftest import REPO, WEB


def test_install_puts_bindery_web_beside_binderyd(binderyd: str, tmp_path: Path) -> None:
    prefix = tmp_path / "prefix"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home")}
    done = subprocess.run([os.path.join(REPO, "scripts", "install"), "--from", binderyd, "--prefix", str(prefix)],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    bridge = prefix / "bin" / "bindery-web"
    assert "installed bindery-web to %s" % bridge in done.stdout
    assert {"bindery-web", "binderyd"} <= set(os.listdir(prefix / "bin"))  # bindery-dev too, when built
    assert os.access(bridge, os.X_OK) and filecmp.cmp(bridge, os.path.join(WEB, "bindery-web"), shallow=False)
    page = prefix / "share" / "bindery-web"
    for name in ("index.html", "app.css", "app.js", "connection.js", "model.js", "mirror.js", "form.js", "values.js"):
        assert filecmp.cmp(page / name, os.path.join(WEB, "static", name), shallow=False), name

    # From elsewhere, with no $BINDERYD and binderyd on no PATH: found beside bindery-web.
    process = subprocess.Popen([str(bridge)], cwd=str(tmp_path), env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and "/?token=" in url
        with urllib.request.urlopen(url, timeout=5) as response:
            assert response.status == 200
            assert response.read() == (page / "index.html").read_bytes()
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=10)
    assert "each page connection runs: %s" % (prefix / "bin" / "binderyd") in stderr
