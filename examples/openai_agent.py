"""A ReAct agent on OpenAI Chat Completions (or any compatible server: Groq, Together, vLLM, Ollama /v1).

Real service:   OPENAI_API_KEY=sk-... python examples/openai_agent.py [--model gpt-4o-mini]
Compatible:     OPENAI_BASE_URL=https://api.groq.com/openai/v1 OPENAI_API_KEY=... \
                python examples/openai_agent.py --model llama-3.3-70b-versatile
Local aimock:   python examples/openai_agent.py --base-url http://127.0.0.1:4010/v1
                (start it with: node "$(bash scripts/aimock.sh)" --port 4010 -f tests/fixtures/aimock)
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from _provider_cli import ProviderExample, show

from agentsm_fn.providers import HttpProvider, openai_provider


def provider(args: argparse.Namespace) -> HttpProvider:
    """Key from OPENAI_API_KEY; URL from --base-url, else OPENAI_BASE_URL, else OpenAI."""
    return openai_provider(args.model, base_url=args.base_url, stream=not args.no_stream, on_event=show)


EXAMPLE = ProviderExample(
    doc=__doc__ or "",
    default_model="gpt-4o-mini",
    base_url_help="server URL with /v1 (default: OPENAI_BASE_URL, else OpenAI)",
    env=("OPENAI_API_KEY", "OPENAI_BASE_URL"),
    make=provider,
)


def main(argv: Sequence[str] | None = None) -> int:
    return EXAMPLE.main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
