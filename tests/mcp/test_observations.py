"""Tool results as the text the model reads (pure)."""

from __future__ import annotations

import base64

import mcp_types as types
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success

from agentsm_fn.mcp import describe_block, result_outcome, result_text


@given(st.lists(st.text(), min_size=1))
def test_text_blocks_come_back_verbatim_in_order(texts: list[str]) -> None:
    result = types.CallToolResult(content=[types.TextContent(text=t) for t in texts])
    assert result_text(result) == "\n".join(texts)
    assert result_outcome(result) == Success("\n".join(texts))


@given(st.binary(max_size=300))
def test_images_and_audio_are_described_by_type_and_exact_size(data: bytes) -> None:
    encoded = base64.b64encode(data).decode()
    image = types.ImageContent(data=encoded, mime_type="image/png")
    audio = types.AudioContent(data=encoded, mime_type="audio/wav")
    assert describe_block(image) == f"[image image/png, {len(data):,} bytes]"
    assert describe_block(audio) == f"[audio audio/wav, {len(data):,} bytes]"


def test_resources_are_described_and_text_resources_shown() -> None:
    text = types.EmbeddedResource(
        resource=types.TextResourceContents(uri="file:///a.txt", mime_type="text/plain", text="hello")
    )
    blob = types.EmbeddedResource(resource=types.BlobResourceContents(uri="file:///a.bin", blob="AAAA"))
    link = types.ResourceLink(name="docs", uri="https://example.com/docs", description="the manual")
    assert describe_block(text) == "[resource file:///a.txt (text/plain)]\nhello"
    assert describe_block(blob) == "[resource file:///a.bin (unknown type), 3 bytes]"
    assert (
        describe_block(link) == "[resource link 'docs' https://example.com/docs (unknown type): the manual]"
    )


def test_structured_content_is_shown_only_when_no_block_is_text() -> None:
    both = types.CallToolResult(content=[types.TextContent(text="21 C")], structured_content={"celsius": 21})
    only = types.CallToolResult(
        content=[types.ImageContent(data="", mime_type="image/png")], structured_content={"celsius": 21}
    )
    assert result_text(both) == "21 C"
    assert result_text(only) == '[image image/png, 0 bytes]\n{"celsius": 21}'


def test_an_error_result_is_a_failure_with_its_text() -> None:
    failed = types.CallToolResult(content=[types.TextContent(text="no such city")], is_error=True)
    silent = types.CallToolResult(content=[], is_error=True)
    assert result_outcome(failed) == Failure("no such city")
    assert result_outcome(silent) == Failure("the tool reported an error")
