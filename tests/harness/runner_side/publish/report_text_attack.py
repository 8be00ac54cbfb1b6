"""Text that would end or comment out a script block, put into every place a scenario or a column brings text to the
report (``tests/harness/runner_side/publish/test_report.py`` checks the markup, ``tests/browser/test_report_page.py`` the page in Chromium)."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from harness.scenarios import Scenario

ATTACK = "<!--<script>document.title='owned'</script><script>document.title='owned'</SCRIPT >&amp;\u2028\u2029'\""
"""Scenario or column text that would end or comment out a script block if it reached one unescaped: an HTML comment
opener followed by a script tag, never closed (inside a script block the pair keeps the block open past its own end
tag: the page's sections after it become script text), end tags in both cases, an entity, the two line separators
and both quotes."""


def attacked(documents: dict[str, dict[str, Any]], scenarios: dict[str, Scenario]) -> tuple[dict[str, dict[str, Any]], dict[str, Scenario]]:
    """The committed evidence and scenarios with ``ATTACK`` in every text a scenario or a column can bring to the page:
    a flaky scenario's description, system prompt and user input (the loop carries the last two), the engine's model
    message and a tool result in its trace, a driver step's error, a call id (a data attribute), a framework's reason."""
    changed = copy.deepcopy(documents)
    scenarios = dict(scenarios)
    for sid in ("flaky_tool_rate_20", "basic_react_loop"):
        scenarios[sid] = dataclasses.replace(scenarios[sid], description=ATTACK, user_input=ATTACK, system_prompt=ATTACK)
    engine = changed["handwritten"]["modes"]["contract"]["scenarios"]["flaky_tool_rate_20"]
    final = next(e for e in reversed(engine["trace"]) if e["kind"] == "model_turn")
    final["final_text"] = ATTACK
    next(e for e in engine["trace"] if e["kind"] == "tool_result")["content"] = ATTACK
    engine["steps"][0]["error"] = ATTACK
    engine["facts"][0]["results"].append([ATTACK, "ok"])
    framework = changed["langgraph"]["modes"]["defaults"]["scenarios"]["basic_react_loop"]
    framework["reasons"] = [*framework.get("reasons", ()), {"rule": "executed_again", "text": ATTACK, "claims": []}]
    return changed, scenarios


def script_blocks(page: str) -> list[str]:
    """The content of each script element as an HTML parser delimits it when no escape state is entered: from the end
    of its start tag to the first ``</script`` in any case."""
    blocks, lowered, at = [], page.lower(), 0
    while (start := lowered.find("<script", at)) != -1:
        opened = page.index(">", start) + 1
        end = lowered.find("</script", opened)
        blocks.append(page[opened:end])
        at = end + 1
    return blocks
