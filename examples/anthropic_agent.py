"""A ReAct agent on the Anthropic Messages API.

Real service:   ANTHROPIC_API_KEY=sk-ant-... python examples/anthropic_agent.py [--model claude-sonnet-4-5]
Local aimock:   python examples/anthropic_agent.py --base-url http://127.0.0.1:4010
                (start it with: node "$(bash scripts/aimock.sh)" --port 4010 -f tests/fixtures/aimock)
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from _provider_cli import ProviderExample, show

from agentsm_fn.providers import HttpProvider, anthropic_provider


def provider(args: argparse.Namespace) -> HttpProvider:
    """Key from ANTHROPIC_API_KEY; URL from --base-url, else ANTHROPIC_BASE_URL, else Anthropic."""
    return anthropic_provider(
        args.model,
        base_url=args.base_url,
        version=args.anthropic_version,
        stream=not args.no_stream,
        on_event=show,
    )


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--anthropic-version", default="2023-06-01", help="anthropic-version header")


EXAMPLE = ProviderExample(
    doc=__doc__ or "",
    default_model="claude-sonnet-4-5",
    base_url_help="server URL (default: ANTHROPIC_BASE_URL, else Anthropic)",
    env=("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
    make=provider,
    options=options,
)


def main(argv: Sequence[str] | None = None) -> int:
    return EXAMPLE.main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
