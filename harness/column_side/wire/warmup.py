"""The wire mode's warm-up: one round of requests in the column process before any worker forks.

The openai client, which the engine's wire model and every framework's OpenAI-compatible model are built on, imports
its API resources and builds its response types' validators on first use. Done in each forked worker, that is paid
again for every driver step of every scenario; done once here, every worker inherits it. The requests go to the
runner's scripted server under the mode ``warmup``, which it answers with a fixed text and no fault, and which the
runner never reads.
"""

from __future__ import annotations

import asyncio
import importlib.util

WARMUP_RUN = "warmup"


def share_default_ssl_context() -> None:
    """Build httpx's default SSL context once, here, and hand that one to every client a worker builds.

    httpcore2 builds a new default context, loading the certificate bundle (about 25 ms), for every HTTP client; the
    frameworks build one or two clients per driver step (LangChain's ``ChatOpenAI`` a sync and an async one), so a wire
    column paid it a hundred times and more a run. The scripted server speaks plain HTTP on loopback: no context is ever
    used for a handshake, so sharing one changes nothing a run does, only what it costs."""
    if importlib.util.find_spec("httpcore2") is None:
        return
    import httpcore2

    shared = httpcore2.default_ssl_context()
    httpcore2.default_ssl_context = lambda **_: shared


def warm_openai_client(base_url: str) -> None:
    """A chat completion and a Responses API call, plain and streamed, with the sync and the async client (no retries)."""
    if importlib.util.find_spec("openai") is None:
        return
    import openai

    url = f"{base_url}/{WARMUP_RUN}/client/0/v1"
    chat = {"model": "warm-up", "messages": [{"role": "user", "content": "warm-up"}]}
    with openai.OpenAI(base_url=url, api_key="warm-up", max_retries=0) as client:
        client.chat.completions.create(**chat)  # type: ignore[call-overload]
        for _ in client.chat.completions.create(**chat, stream=True):  # type: ignore[call-overload]
            pass
        client.responses.create(model="warm-up", input="warm-up")

    async def in_loop() -> None:
        async with openai.AsyncOpenAI(base_url=url, api_key="warm-up", max_retries=0) as client:
            await client.chat.completions.create(**chat)  # type: ignore[call-overload]
            async for _ in await client.chat.completions.create(**chat, stream=True):  # type: ignore[call-overload]
                pass
            await client.responses.create(model="warm-up", input="warm-up")
            async for _ in await client.responses.create(model="warm-up", input="warm-up", stream=True):
                pass

    asyncio.run(in_loop())
