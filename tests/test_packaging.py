"""One distribution ships both top-level packages, typed, and builds with the standard front-end."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    (built,) = out.glob("agentsm_fn-*.whl")
    return built


def test_the_wheel_ships_both_packages_with_py_typed(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "agentsm_fn/py.typed" in names
    assert "verification/py.typed" in names
    assert "agentsm_fn/core/engine.py" in names
    assert not any(name.startswith(("tests/", "examples/", "benchmarks/")) for name in names)


def test_the_wheel_declares_python_and_runtime_dependencies(wheel: Path) -> None:
    archive = zipfile.ZipFile(wheel)
    (metadata,) = (n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
    text = archive.read(metadata).decode()
    assert "Requires-Python: >=3.11" in text
    for dependency in ("attrs", "returns", "pyrsistent", "httpx", "networkx"):
        assert f"Requires-Dist: {dependency}" in text


def test_the_wheel_ships_the_built_inspector(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for asset in ("index.html", "app.js", "app.css", "LICENSES.txt"):
        assert f"agentsm_fn/inspector/static/{asset}" in names
    assert not any(name.startswith("web/") for name in names)
