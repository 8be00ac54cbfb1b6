"""The wire mode's model of the LangChain column: LangChain's ``ChatOpenAI`` aimed at the scripted OpenAI-compatible server.

The model is shared with the LangGraph column (both use ``langchain-openai``): see
``adapters/wire_chat_openai.py`` for the documentation it follows and the defaults it leaves alone.
"""

from __future__ import annotations

from adapters.wire_chat_openai import API_KEY, MODEL_NAME, wire_model

__all__ = ["API_KEY", "MODEL_NAME", "wire_model"]
