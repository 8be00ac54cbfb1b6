"""The README and docs/ tell the truth about the repository: every relative link resolves (the file exists and an
``#anchor`` is a heading of the target, by GitHub's slug rules), the README stays a front door (at most 12 KB), the
counts and versions they state are computed from the registry, the scenario files and the evidence, and the
headline of what the frameworks do is what evidence/FINDINGS.md says.

A count inside a paragraph that says when it was measured (``measured`` and a date) is what was measured then, and
is left alone; every other stated count is today's."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from harness.columns import ROOT, known_columns
from harness.runner_side.publish import console
from harness.scenarios import SCENARIO_DIR, scenario_files

README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, *DOCS, SCENARIO_DIR / "README.md"]
FINDINGS = ROOT / "evidence" / "FINDINGS.md"
README_LIMIT = 12 * 1024

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)


def prose(text: str) -> str:
    """The text outside fenced code blocks (a ``# comment`` in a shell block is no heading, a link there no link)."""
    return FENCE.sub("", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: the rendered text (link targets, code marks and emphasis dropped), lower case,
    punctuation other than ``-`` and ``_`` removed, each space a ``-``."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"[`*]", "", text).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    """Every anchor of a Markdown file's headings, a repeated one suffixed ``-1``, ``-2``, ... as GitHub does."""
    seen: dict[str, int] = {}
    found = set()
    for match in HEADING.finditer(prose(path.read_text(encoding="utf-8"))):
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return frozenset(found)


def links(path: Path) -> list[str]:
    text = INLINE_CODE.sub("", prose(path.read_text(encoding="utf-8")))
    return [m.group(1) for m in LINK.finditer(text)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...: not this repository's
            continue
        file_part, _, anchor = target.partition("#")
        resolved = (page.parent / file_part).resolve() if file_part else page
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target}: no heading with that anchor in {resolved.relative_to(ROOT)}")
        elif anchor and resolved.suffix != ".md":
            broken.append(f"{target}: an anchor into a file that has no headings")
    assert not broken, broken


def test_the_pages_link_each_other() -> None:
    """Every page of docs/ is reachable from the README, and the README links scenarios/README.md and FINDINGS.md."""
    linked = {(README.parent / t.partition("#")[0]).resolve() for t in links(README) if t.partition("#")[0]}
    missing = [str(p.relative_to(ROOT)) for p in [*DOCS, SCENARIO_DIR / "README.md", FINDINGS] if p.resolve() not in linked]
    assert not missing, missing


def test_the_slug_rules() -> None:
    assert slug("MCP: a protocol boundary, not an authorization boundary") == "mcp-a-protocol-boundary-not-an-authorization-boundary"
    assert slug("Hands arguments that break the tool's strict schema (`invalid_args_ran`)") == "hands-arguments-that-break-the-tools-strict-schema-invalid_args_ran"
    assert slug("`--check`") == "--check"


def test_the_readme_is_a_front_door() -> None:
    size = len(README.read_bytes())
    assert size <= README_LIMIT, f"README.md is {size} bytes; move detail to docs/ (the limit is {README_LIMIT})"


def readme_section(title: str) -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_the_readmes_column_table_lists_every_registered_column_with_its_pinned_versions() -> None:
    rows = re.findall(r"^\| `([a-z_]+(?:@[0-9][\w.+-]*)?)` \|(.*)$", readme_section("Columns"), flags=re.M)
    assert sorted(name for name, _ in rows) == sorted(known_columns()), "the README's column table and harness.columns differ"
    for name, cells in rows:
        stated = re.findall(r"\b\d+\.\d+\.\d+\b", cells)
        if known_columns()[name].environment != "isolated":
            continue
        versions = json.loads((ROOT / "evidence" / f"{name}.json").read_text(encoding="utf-8"))["versions"]
        assert stated and set(stated) <= set(versions.values()), f"{name}: the README says {stated}, the evidence has other versions"


NUMBERS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()
COUNT = re.compile(
    r"\b(" + "|".join(NUMBERS) + r"|\d+)\s+((?:(?:pinned|committed|third-party|isolated|fixture)\s+){0,2})(columns|scenarios|scenario files|frameworks)\b",
    re.I,
)
DATED = re.compile(r"measured\b.*?\b\d{4}-\d{2}-\d{2}|\b\d{4}-\d{2}-\d{2}\b.*?measured", re.I | re.S)


def truths() -> dict[str, int]:
    columns = known_columns()
    return {
        "columns": len(columns),
        "frameworks": len({c.adapter for c in columns.values() if c.environment == "isolated"}),  # a framework at two pins is one
        "scenarios": len(scenario_files(SCENARIO_DIR)),
        "scenario files": len(scenario_files(SCENARIO_DIR)),
    }


def test_every_count_stated_today_is_the_count_today() -> None:
    truth = truths()
    wrong = []
    for page in PAGES:
        for paragraph in re.split(r"\n[ \t]*\n", prose(page.read_text(encoding="utf-8"))):
            if DATED.search(paragraph):
                continue  # a figure of the day it was measured on
            for match in COUNT.finditer(paragraph):
                word, noun = match.group(1).lower(), match.group(3).lower()
                stated = int(word) if word.isdigit() else NUMBERS.index(word)
                if stated != truth[noun]:
                    wrong.append(f"{page.relative_to(ROOT)}: {match.group(0)!r}, but there are {truth[noun]} today")
    assert not wrong, wrong


def findings_section(title: str) -> tuple[str, set[str]]:
    """A ``## title`` section of FINDINGS.md and the anchors of the headings in it."""
    text = FINDINGS.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    body = text[start:end]
    return body, {slug(m.group(2)) for m in HEADING.finditer(body)}


def test_the_headline_is_what_findings_md_says() -> None:
    """The findings the README says every framework shows are the ones FINDINGS.md lists under "Every framework", those
    it says some show are under "Some frameworks", and the sentence it quotes is FINDINGS.md's."""
    headline = readme_section("What the frameworks do")
    bullets = re.findall(r"^- \[[^\]]+\]\(evidence/FINDINGS\.md#([^)]+)\)$", headline, flags=re.M)
    _, every = findings_section("Every framework")
    every.discard("every-framework")
    assert bullets and set(bullets) == every, f"README lists {sorted(set(bullets) - every)} FINDINGS.md does not, and misses {sorted(every - set(bullets))}"
    sections = {slug(m.group(2)) for m in HEADING.finditer(FINDINGS.read_text(encoding="utf-8")) if m.group(1) == "##"}
    _, some = findings_section("Some frameworks")
    others = set(re.findall(r"\(evidence/FINDINGS\.md#([^)]+)\)", headline)) - set(bullets) - sections
    assert others <= some, f"the README says some frameworks show {sorted(others - some)}; FINDINGS.md lists them elsewhere"
    for quoted in re.findall(r'"([^"]{40,})"', headline):
        assert " ".join(quoted.split()) in FINDINGS.read_text(encoding="utf-8"), quoted


@cache
def evidence(name: str) -> dict[str, Any]:
    return json.loads((ROOT / "evidence" / f"{name}.json").read_text(encoding="utf-8"))


def test_what_the_docs_say_of_the_evidence_holds() -> None:
    """docs/mcp.md: handwritten_mcp equals handwritten on every cell; docs/findings.md: no difference is unexplained
    on the committed scenarios; docs/comparison.md: the committed scenarios run in sibling orders are the three it names."""
    mcp = evidence("handwritten_mcp")["modes"]["contract"]["summary"]
    assert mcp["equal_cells"] == mcp["applicable_cells"] and mcp["not_equal_cells"] == 0, mcp
    unexplained = {
        f"{name}/{mode}": body["summary"]["unexplained_cells"]
        for name in known_columns()
        for mode, body in evidence(name).get("modes", {}).items()
        if body["summary"].get("unexplained_cells")
    }
    assert not unexplained, unexplained
    keys = [key for name in known_columns() for body in evidence(name).get("modes", {}).values() for key in body["scenarios"]]
    ordered = {k.split("@")[0] for k in keys if k.endswith(("siblings_first", "kill_first"))}
    named = {"kill_in_batch_after_approved", "two_transfers_flaky_note_kill", "misused_approval_kill_resume"}
    assert ordered == named and all(f"`{sid}`" in (ROOT / "docs" / "comparison.md").read_text(encoding="utf-8") for sid in named), ordered


def printed_for_the_committed_evidence(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """Every line a run prints for the committed evidence in its table, summaries and closing lines (the run's own code
    renders them: ``publish.console``)."""
    monkeypatch.chdir(ROOT)
    documents = {name: evidence(name) for name in known_columns()}
    capsys.readouterr()
    console.summaries(documents)
    lines = console.compact(documents, []).splitlines() + capsys.readouterr().out.splitlines()
    return {line.rstrip() for line in lines} | set(console.where(ROOT / "evidence", check=False))


def test_the_readmes_excerpt_of_a_run_is_what_a_run_prints_for_the_committed_evidence(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The excerpt's counts (scenarios matching their expectations, cells equal per column and mode, the table's marks) are
    the evidence's: each line but ``...`` is one the run prints for the committed evidence."""
    section = readme_section("What a run prints")
    excerpt = next(block for block in re.findall(r"^```\n(.*?)^```$", section, flags=re.M | re.S) if block.startswith("columns:"))
    printed = printed_for_the_committed_evidence(capsys, monkeypatch)
    stale = [line for line in excerpt.splitlines() if line.strip() != "..." and line.rstrip() not in printed]
    assert not stale, f"README.md's excerpt has lines today's evidence does not print: {stale}"
