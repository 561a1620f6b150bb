"""The inspector's committed files are what its build makes; all the page loads ships; nothing is remote."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from agentsm_fn.inspector import ASSETS

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
STATIC = ROOT / "agentsm_fn" / "inspector" / "static"


def test_every_file_the_page_references_is_shipped() -> None:
    page = (STATIC / "index.html").read_text()
    referenced = re.findall(r'(?:src|href)="(/inspector/[^"]+)"', page)
    assert sorted(referenced) == ["/inspector/app.css", "/inspector/app.js"]
    for path in referenced:
        assert (ASSETS / path.removeprefix("/inspector/")).is_file(), path
    assert "Apache License" in (STATIC / "LICENSES.txt").read_text()


def test_the_page_fetches_nothing_from_the_internet() -> None:
    for name in ("index.html", "app.css"):
        text = (STATIC / name).read_text()
        assert not re.search(r"(src|href|url)\(?=?[\"']?(https?:)?//", text), name
    script = (STATIC / "app.js").read_text()
    assert not re.search(r"""(import\(|fetch\(|new URL\()\s*["'`]https?://""", script)
    assert "fonts.googleapis" not in script and "cdn." not in script


def _node() -> str:
    """Node, with the build's packages installed (under CI=true their absence fails the test)."""
    node = shutil.which("node")
    if node is None or not (WEB / "node_modules" / "esbuild").is_dir():
        message = (
            "the inspector's build tools are missing: bash scripts/inspector.sh install (Node 20 with npm)"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return node


def test_the_licences_hold_the_full_text_of_every_licence_file_of_the_bundled_package() -> None:
    _node()
    shipped = (STATIC / "LICENSES.txt").read_text()
    graphviz = WEB / "node_modules" / "@hpcc-js" / "wasm-graphviz"
    files = [
        p for p in graphviz.iterdir() if re.fullmatch(r"(?i)(licen[cs]e|copying|notice)(\.(md|txt))?", p.name)
    ]
    assert [p.name for p in files] == ["LICENSE"]
    for licence in files:
        assert licence.read_text().strip() in shipped
    assert "bundles these third-party packages: @hpcc-js/wasm-graphviz." in shipped
    epl = (WEB / "licenses" / "EPL-1.0.txt").read_text().strip()
    assert epl.startswith("Eclipse Public License - v 1.0") and epl in shipped  # Graphviz's licence, in full


def test_the_committed_build_is_what_the_build_makes(tmp_path: Path) -> None:
    node = _node()
    subprocess.run([node, str(WEB / "build.mjs"), str(tmp_path)], check=True, cwd=WEB, timeout=120)
    built = sorted(p.name for p in tmp_path.iterdir())
    assert built == sorted(p.name for p in STATIC.iterdir())
    for name in built:
        assert (tmp_path / name).read_bytes() == (STATIC / name).read_bytes(), (
            f"{name}: run bash scripts/inspector.sh"
        )
