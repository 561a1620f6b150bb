"""The purity law: the pure layers import nothing that does IO."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PURE_PACKAGES = (
    "agentsm_fn/core",
    "agentsm_fn/llm",
    "agentsm_fn/agents",
    "agentsm_fn/tools",
    "agentsm_fn/stream",
    "agentsm_fn/teams",
)
PURE_EVALS = tuple(
    f"agentsm_fn/evals/{name}.py"
    for name in (
        "cases",
        "check",
        "checks",
        "compare",
        "coverage",
        "evidence",
        "grades",
        "judge",
        "properties",
        "reports",
        "results",
        "specs",
        "stats",
        "tool_calls",
    )
)
"""The pure modules of ``agentsm_fn.evals`` (its files, experiments and judging runs do IO)."""
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


LOWER_LAYERS_NEVER_IMPORT = ("agentsm_fn.shell", "agentsm_fn.providers")
"""The IO layers above the pure ones: every import in a pure layer points down, away from them."""


def pure_modules() -> list[Path]:
    found: list[Path] = []
    for package in PURE_PACKAGES:
        found.extend(sorted((ROOT / package).rglob("*.py")))
    found.extend(ROOT / module for module in PURE_EVALS)
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


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports anywhere (top level or in a function; ``from x import y`` as ``x.y``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def upward_imports(path: Path) -> set[str]:
    """The modules of the shell or the providers that ``path`` imports, lazily or not."""
    return {
        name
        for name in imported_modules(path)
        for layer in LOWER_LAYERS_NEVER_IMPORT
        if name == layer or name.startswith(layer + ".")
    }


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


@pytest.mark.parametrize("path", pure_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_pure_module_never_imports_the_shell_or_the_providers(path: Path) -> None:
    bad = upward_imports(path)
    assert not bad, (
        f"{path.relative_to(ROOT)} imports {sorted(bad)}; the pure layers must not know the shell or"
        " the providers (put the code that needs them in agentsm_fn/shell)"
    )


def test_the_checker_catches_an_upward_import_inside_a_function(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from agentsm_fn import shell\n"
        "def run() -> None:\n"
        "    from agentsm_fn.shell.run import run\n"
        "    import agentsm_fn.providers.openai_codec\n"
        "from agentsm_fn.shellfish import x\n",
        encoding="utf-8",
    )
    assert upward_imports(sample) == {
        "agentsm_fn.shell",
        "agentsm_fn.shell.run",
        "agentsm_fn.shell.run.run",
        "agentsm_fn.providers.openai_codec",
    }
