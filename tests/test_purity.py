"""The purity law: the pure layers import nothing that does IO."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PURE_PACKAGES = ("agentsm_fn/core", "agentsm_fn/llm", "agentsm_fn/agents", "agentsm_fn/tools")
BANNED = frozenset(
    {
        "asyncio",
        "concurrent",
        "http",
        "httpx",
        "io",
        "multiprocessing",
        "os",
        "pathlib",
        "random",
        "requests",
        "secrets",
        "shutil",
        "signal",
        "socket",
        "sqlite3",
        "subprocess",
        "tempfile",
        "threading",
        "time",
        "urllib",
        "uuid",
    }
)


def pure_modules() -> list[Path]:
    found: list[Path] = []
    for package in PURE_PACKAGES:
        found.extend(sorted((ROOT / package).rglob("*.py")))
    return found


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "__import__":
            roots.add("<dynamic __import__>")
    return roots


def test_there_are_pure_modules_to_check() -> None:
    assert len(pure_modules()) >= 10


@pytest.mark.parametrize("path", pure_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_pure_module_imports_nothing_that_does_io(path: Path) -> None:
    bad = imported_roots(path) & (BANNED | {"<dynamic __import__>"})
    assert not bad, (
        f"{path.relative_to(ROOT)} imports {sorted(bad)}; IO belongs in agentsm_fn/shell or providers"
    )


def test_the_checker_catches_a_banned_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import time\nfrom os import path\nfrom agentsm_fn.core import step\n", encoding="utf-8"
    )
    assert imported_roots(sample) & BANNED == {"time", "os"}
