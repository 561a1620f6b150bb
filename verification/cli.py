"""``agentsm-verify``: prove properties of machines from the command line or a pre-commit hook.

Usage::

    agentsm-verify [MODULE:ATTRIBUTE ...] [--format text|json|sarif] [--output FILE]
                   [--diagrams DIR] [--diagram-format mermaid|dot|markdown ...]
                   [--config PYPROJECT] [--ignore CODE=REASON ...] [--explore]

``--explore`` runs the explorations of ``[[tool.agentsm_fn.explore]]`` instead (of the named
machines only, when targets are given): every run of the real handlers, breadth first
(:mod:`verification.explore`, needs the ``kit`` extra).

With no target it reads ``[tool.agentsm_fn]`` from ./pyproject.toml. Exit codes:
0 every property proved (or its violations ignored), 1 a property violated,
2 usage, configuration or import error, 3 internal error.

Failures on the way, as values::

    CliError
    ├── usage        bad arguments, no machines named anywhere
    ├── ConfigError  pyproject.toml unreadable or [tool.agentsm_fn] wrong
    ├── LoadError    a target cannot be imported or is not a Machine or a foreign graph
    └── PolicyError  a policy names a state the machine lacks
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from returns.result import Failure, Success

from agentsm_fn.teams.team import Team
from verification.config import DIAGRAM_FORMATS, FORMATS, Config, read_config
from verification.diagrams import to_dot, to_markdown, to_mermaid
from verification.explore_settings import explore_command
from verification.findings import property_for
from verification.loading import load_target
from verification.model import MachineGraph
from verification.policies import PolicyError
from verification.report_json import render_json
from verification.report_sarif import render_sarif
from verification.report_text import render_text
from verification.team import verify_team
from verification.verify import Ignore, Report, verify_graph

__all__ = ["EXIT_ERROR", "EXIT_INTERNAL", "EXIT_OK", "EXIT_VIOLATED", "main"]

EXIT_OK = 0
"""Every property proved (or its violations ignored with a reason)."""
EXIT_VIOLATED = 1
"""At least one property is violated."""
EXIT_ERROR = 2
"""Usage, configuration or import error."""
EXIT_INTERNAL = 3
"""A bug in the verifier."""

_SUFFIX = {"mermaid": ".mmd", "dot": ".dot", "markdown": ".md"}
_RENDER = {"mermaid": to_mermaid, "dot": to_dot, "markdown": to_markdown}


class _Parser(argparse.ArgumentParser):
    """An argument parser that reports errors instead of exiting the interpreter."""

    def error(self, message: str) -> None:  # type: ignore[override]  # raises instead of NoReturn exit
        raise _UsageError(message)


class _UsageError(Exception):
    pass


def _parser() -> _Parser:
    p = _Parser(
        prog="agentsm-verify",
        description="Prove properties of agentsm_fn state machines (reachability, deadlock, "
        "option to complete, event completeness, termination, ...). With no target, read "
        "[tool.agentsm_fn] from pyproject.toml.",
    )
    p.add_argument(
        "targets",
        nargs="*",
        metavar="MODULE:ATTRIBUTE",
        help="machines to verify: a module importable from the current directory (mypkg.agent:MACHINE) "
        "or a file (path/to/agent.py:MACHINE); also a Team of agents (each agent, then the team as one "
        "graph), a LangGraph StateGraph, a python-statemachine StateMachine or a transitions Machine",
    )
    p.add_argument("--format", choices=FORMATS, help="report format (default: text, or the config's)")
    p.add_argument("--output", "-o", metavar="FILE", help="write the report here instead of stdout")
    p.add_argument("--diagrams", metavar="DIR", help="write a diagram of each machine into DIR")
    p.add_argument(
        "--diagram-format", action="append", choices=DIAGRAM_FORMATS, help="diagram format (repeatable)"
    )
    p.add_argument("--config", metavar="PYPROJECT", help="read [tool.agentsm_fn] from this file")
    p.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="CODE=REASON",
        help="ignore a property, with a reason",
    )
    p.add_argument(
        "--explore",
        action="store_true",
        help="explore every run of the machines [[tool.agentsm_fn.explore]] declares (needs the kit extra)",
    )
    return p


def _ignores(pairs: Sequence[str]) -> tuple[Ignore, ...]:
    found: list[Ignore] = []
    for pair in pairs:
        code, sep, reason = pair.partition("=")
        if not sep or not reason.strip():
            raise _UsageError(f"--ignore {pair!r}: expected CODE=REASON, e.g. SM009='bounded by the caller'")
        try:
            property_for(code.strip())
        except KeyError as exc:
            raise _UsageError(str(exc.args[0])) from None
        found.append(Ignore(code.strip(), reason.strip()))
    return tuple(found)


def _config(path: str | None) -> Config | str:
    file = Path(path) if path else Path("pyproject.toml")
    if path is None and not file.exists():
        return Config()
    result = read_config(file)
    config = result.value_or(None)
    return config if config is not None else str(result.failure())


def _slug(spec: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in spec.replace(":", "."))


def _write_if_changed(path: Path, text: str) -> None:
    """Write only when the content differs, so a hook run leaves up-to-date files untouched."""
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _run(argv: Sequence[str] | None) -> int:
    try:
        args = _parser().parse_args(argv)
        extra_ignores = _ignores(args.ignore)
    except _UsageError as exc:
        print(f"agentsm-verify: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except SystemExit as exc:  # --help and --version print and exit through argparse
        return exc.code if isinstance(exc.code, int) else EXIT_ERROR
    config = _config(args.config)
    if isinstance(config, str):
        print(f"agentsm-verify: error: {config}", file=sys.stderr)
        return EXIT_ERROR
    if args.explore:
        return _explore(config, args.targets, args.output)
    targets: list[str] = list(args.targets) or list(config.machines)
    if not targets:
        print(
            "agentsm-verify: error: no machines to verify; name MODULE:ATTRIBUTE targets or list them in "
            "[tool.agentsm_fn] machines = [...] in pyproject.toml",
            file=sys.stderr,
        )
        return EXIT_ERROR
    reports: list[Report] = []
    errors: list[str] = []
    for spec in targets:
        match load_target(spec):
            case Failure(error):
                errors.append(str(error))
            case Success(Team() as team):
                ignores = (*config.ignores_for(spec), *extra_ignores)
                reports.extend(verify_team(team, ignores=ignores, label=spec))
            case Success(MachineGraph() as model):
                try:
                    reports.append(
                        verify_graph(
                            model,
                            policies=config.policies_for(spec),
                            ignores=(*config.ignores_for(spec), *extra_ignores),
                            label=spec,
                        )
                    )
                except PolicyError as exc:
                    errors.extend(f"{spec}: {p}" for p in exc.problems)
    if errors:
        for error in errors:
            print(f"agentsm-verify: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    fmt = args.format or config.format
    text = {"text": render_text, "json": render_json, "sarif": render_sarif}[fmt](reports)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    directory = args.diagrams or config.diagrams
    if directory:
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        for report in reports:
            for kind in args.diagram_format or config.diagram_formats:
                _write_if_changed(out / (_slug(report.machine) + _SUFFIX[kind]), _RENDER[kind](report))
    return EXIT_OK if all(r.ok for r in reports) else EXIT_VIOLATED


def _explore(config: Config, targets: Sequence[str], output: str | None) -> int:
    command = explore_command()  # verification.explore, found through its entry point
    if isinstance(command, str):
        print(f"agentsm-verify: error: {command}", file=sys.stderr)
        return EXIT_ERROR
    found = command(config.explorations, targets)
    for error in found.errors:
        print(f"agentsm-verify: error: {error}", file=sys.stderr)
    if output:
        Path(output).write_text(found.text, encoding="utf-8")
    else:
        sys.stdout.write(found.text)
    if found.errors:
        return EXIT_ERROR
    return EXIT_OK if found.ok else EXIT_VIOLATED


def main(argv: Sequence[str] | None = None) -> int:
    """Run the verifier CLI; return the exit code (0 proved, 1 violated, 2 usage, 3 internal).

    Example:
        >>> main(["not-a-target"])
        2
    """
    try:
        return _run(argv)
    except Exception:  # a bug in the verifier must not look like a violation
        print("agentsm-verify: internal error (please report it):", file=sys.stderr)
        traceback.print_exc(file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    raise SystemExit(main())
