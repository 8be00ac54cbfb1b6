"""The wire mode's model of the Google ADK column: ADK's own ``OpenAILlm`` aimed at the server.

ADK 2.13 ships an OpenAI-compatible model class of its own, ``google.adk.integrations.openai.OpenAILlm`` (the
``google-adk[openai]`` extra, pinned in this column's lock), whose docstring teaches it for "any OpenAI-compatible
backend": ``OpenAILlm(model=..., base_url=..., api_key=...)`` (``google/adk/integrations/openai/_openai_llm.py``); the
docs site still teaches such endpoints through LiteLLM (https://google.github.io/adk-docs/agents/models/litellm/), which
the issue that added this column puts second to a class ADK ships. Only the address, a dummy key and a neutral model
name are set: the openai client ADK builds (its retries and timeout) and ADK's message conversion stay at their
defaults, so the wire measures them. It calls ``POST <base_url>/chat/completions``.
"""

from __future__ import annotations

from google.adk.integrations.openai import OpenAILlm

MODEL_NAME = "scripted-model"  # neutral: no provider's name
API_KEY = "wire-dummy-key"  # the scripted server ignores it; the client refuses to start without one


def wire_model(base_url: str) -> OpenAILlm:
    """``OpenAILlm`` aimed at ``base_url`` (``http://127.0.0.1:<port>/<token>/<run>/<step>/v1``), defaults untouched."""
    return OpenAILlm(model=MODEL_NAME, base_url=base_url, api_key=API_KEY)
