"""A ReAct agent on Ollama's native /api/chat (tool arguments as objects, NDJSON streaming).

Real server:    OLLAMA_HOST=http://127.0.0.1:11434 python examples/ollama_agent.py [--model llama3.2]
Local aimock:   python examples/ollama_agent.py --base-url http://127.0.0.1:4010
                (start it with: node "$(bash scripts/aimock.sh)" --port 4010 -f tests/fixtures/aimock)
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from _provider_cli import ProviderExample, show

from agentsm_fn.providers import HttpProvider, ollama_provider


def provider(args: argparse.Namespace) -> HttpProvider:
    """The URL comes from --base-url, else OLLAMA_HOST."""
    return ollama_provider(args.model, base_url=args.base_url, stream=not args.no_stream, on_event=show)


EXAMPLE = ProviderExample(
    doc=__doc__ or "",
    default_model="llama3.2",
    base_url_help="Ollama URL (default: OLLAMA_HOST)",
    env=("OLLAMA_HOST",),
    make=provider,
)


def main(argv: Sequence[str] | None = None) -> int:
    return EXAMPLE.main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
