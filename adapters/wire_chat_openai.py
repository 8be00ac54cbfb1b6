"""The wire mode's model for the LangChain and LangGraph columns: LangChain's own OpenAI-compatible chat model.

Both columns reach an OpenAI-compatible server the way LangChain documents it, ``langchain_openai.ChatOpenAI`` with a
custom ``base_url`` (https://docs.langchain.com/oss/python/integrations/chat#chat-completions-api, and the
``ChatOpenAI`` page https://docs.langchain.com/oss/python/integrations/chat/openai). Only the address, a dummy key and
a neutral model name are set: retries, timeout, streaming and the API choice stay at langchain-openai's defaults, so
the wire measures them. ``ChatOpenAI`` routes some model names to the Responses API on its own; the neutral name is
not one of them, so it calls ``<base_url>/chat/completions`` (checked here, so a later pin that changes the rule
fails loudly instead of silently moving the column to another API).
"""

from __future__ import annotations

from langchain_openai import ChatOpenAI
from pydantic import SecretStr

MODEL_NAME = "scripted-model"  # neutral: no provider's name, so no name-based routing or feature switch applies
API_KEY = "wire-dummy-key"  # the scripted server ignores it; the client refuses to start without one


def wire_model(base_url: str) -> ChatOpenAI:
    """``ChatOpenAI`` aimed at ``base_url`` (``http://127.0.0.1:<port>/<token>/<run>/<step>/v1``), defaults untouched."""
    model = ChatOpenAI(model=MODEL_NAME, base_url=base_url, api_key=SecretStr(API_KEY))
    if model.use_responses_api:  # set by ChatOpenAI's own validator when the model name prefers the Responses API
        raise RuntimeError(f"ChatOpenAI would call the Responses API for model {MODEL_NAME!r}; the wire mode expects chat completions")
    return model
