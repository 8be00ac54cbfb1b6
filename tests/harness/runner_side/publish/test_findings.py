"""evidence/FINDINGS.md is generated from the evidence, and a probe stands behind every defaults finding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.columns import ROOT, known_columns
from harness.runner_side.publish.findings import Entry, collect, missing_probes, probes_for, probes_in, render
from harness.runner_side.publish.probes import Probe, ProbeError, declared_probes, disagreements

EVIDENCE = ROOT / "evidence"


def _documents() -> dict[str, dict[str, Any]]:
    return {p.stem: d for p in sorted(EVIDENCE.glob("*.json")) if "framework" in (d := json.loads(p.read_text(encoding="utf-8")))}


def test_the_committed_findings_are_what_the_evidence_and_the_probes_generate() -> None:
    sweep = json.loads((EVIDENCE / "sweep.json").read_text(encoding="utf-8"))  # the crash sweep's rows (docs/sweep.md)
    assert (EVIDENCE / "FINDINGS.md").read_text(encoding="utf-8") == render(_documents(), declared_probes(), sweep)


def test_the_findings_open_with_their_scope_and_sort_what_is_shared() -> None:
    text = render(_documents(), declared_probes())
    assert "scripted" in text.split("\n## ")[0] and "not how well a live model plans" in text
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings[:4] == ["## Approval bindings", "## Every framework", "## Some frameworks", "## One framework"]


def test_the_binding_table_says_not_carried_from_the_declared_fields_and_the_rest_from_measured_misuses() -> None:
    documents = _documents()
    text = render(documents, declared_probes())
    table = text.split("## Approval bindings", 1)[1].split("\n## ", 1)[0]
    rows = {line.split(" | ")[0].strip("| "): line for line in table.splitlines() if line.startswith("| ") and "---" not in line}
    assert "not carried" in rows["expiry"] and "enforced" not in rows["expiry"]  # no framework has an expiry field
    columns = [c.strip() for c in rows["binding"].strip("| ").split(" | ")[1:]]
    for name in columns:
        carried = documents[name]["approval_fields"]
        cells = {b: rows[b].strip("| ").split(" | ")[1 + columns.index(name)] for b in ("call", "arguments", "single use")}
        for binding, cell in cells.items():
            assert (cell == "not carried") == (binding.replace(" ", "_") not in carried), (name, binding, cell)
    # a taken misuse of a carried binding is 'not enforced': remove the findings and the cell says enforced
    edited = {n: dict(d) for n, d in documents.items()}
    runs = edited["agentscope"]["modes"]["defaults"]["scenarios"]
    kept = {key: {**record, "reasons": [r for r in record.get("reasons", ()) if r["rule"] != "misused_approval_accepted"]} for key, record in runs.items()}
    edited["agentscope"] = {**documents["agentscope"], "modes": {**documents["agentscope"]["modes"], "defaults": {
        **documents["agentscope"]["modes"]["defaults"], "scenarios": kept}}}
    assert "**not enforced** (`approval_misuse_other_args`" in rows["arguments"]
    cells = render(edited, declared_probes()).split("| arguments |", 1)[1].split("\n", 1)[0].split(" | ")
    assert "**not enforced**" not in cells[columns.index("agentscope")]


def test_every_defaults_finding_links_a_probe() -> None:
    assert missing_probes(_documents(), declared_probes()) == []
    assert "**no probe**" not in (EVIDENCE / "FINDINGS.md").read_text(encoding="utf-8")


def test_every_probe_reproduces_a_scenario_whose_cells_it_shows_differ() -> None:
    """In every column it runs in (its framework's column at each of its pins)."""
    documents, registry = _documents(), known_columns()
    for probe in (p for p in declared_probes() if p.mode != "sweep"):  # a sweep probe's run is a row's: test_sweep_section.py
        for column in probe.columns(registry):
            record = documents[column]["modes"][probe.mode]["scenarios"].get(probe.scenario)
            assert record is not None, (column, probe)
            assert any(record["columns"][path.split(".")[0]]["equal"] is False for path in probe.shows), (column, probe)


def test_a_finding_disappears_with_its_reason() -> None:
    documents = _documents()
    assert "denied_tool_ran" in collect(documents, "defaults")
    for document in documents.values():
        for body in document.get("modes", {}).values():
            for record in body["scenarios"].values():
                record["reasons"] = [r for r in record.get("reasons", ()) if r["rule"] != "denied_tool_ran"]
    assert "denied_tool_ran" not in collect(documents, "defaults")
    assert "(`denied_tool_ran`)" not in render(documents, declared_probes())


def test_a_probe_count_that_differs_from_the_evidence_is_reported() -> None:
    probe = next(p for p in declared_probes() if p.framework == "langgraph" and p.scenario == "always_deny")
    evidence = _documents()["langgraph"]
    recorded = evidence["modes"]["defaults"]["scenarios"]["always_deny"]["columns"]["side_effects"]["framework"]["c1"]["effects"]
    printed = {path: _at(evidence, path) for path in probe.shows}
    assert disagreements(probe, printed, evidence) == []
    assert disagreements(probe, {**printed, "side_effects.c1.effects": recorded + 1}, evidence) == [f"side_effects.c1.effects: probe {recorded + 1}, evidence {recorded}"]
    assert "model.calls_per_turn.0: printed but not in SHOWS" in disagreements(probe, {**printed, "model.calls_per_turn.0": 1}, evidence)
    missing = dict(list(printed.items())[1:])
    assert disagreements(probe, missing, evidence) == [f"{next(iter(printed))}: in SHOWS but no count printed"]


def _at(evidence: dict[str, Any], path: str) -> Any:
    observable, *keys = path.split(".")
    value = evidence["modes"]["defaults"]["scenarios"]["always_deny"]["columns"][observable]["framework"]
    for key in keys:
        value = value[key]
    return value


def test_a_finding_links_only_probes_that_print_what_its_reason_accounts_for() -> None:
    probes = declared_probes()
    leaf = ("pre_approval_state", "pauses", "0", "args_validated")
    linked = probes_for(probes, "langchain", [("high_risk_approved", ["pre_approval_state"], "text", [leaf])])
    assert linked and all(any(p.split(".")[:4] == list(leaf) or list(leaf)[: len(p.split("."))] == p.split(".") for p in probe.shows) for probe in linked)
    assert not probes_for(probes, "langchain", [("high_risk_approved", ["pre_approval_state"], "text", [("pre_approval_state", "decisions", "0", "x")])])


def test_a_probe_that_declares_nothing_is_refused(tmp_path: Path) -> None:
    (tmp_path / "langgraph").mkdir()
    (tmp_path / "langgraph" / "vague.py").write_text("SCENARIO = 'always_deny'\n", encoding="utf-8")
    with pytest.raises(ProbeError, match="SHOWS"):
        declared_probes(tmp_path)


def test_each_core_observable_a_framework_gets_wrong_by_default_has_a_probe() -> None:
    core = ("schema_failure_side_effects", "pre_approval_state", "idempotent_replay", "checkpoint_after_interrupt")
    probes = declared_probes()
    for name, document in _documents().items():
        if "defaults" not in document.get("modes", {}):
            continue
        differ = {n for s in document["modes"]["defaults"]["scenarios"].values() for n, c in s["columns"].items() if c["equal"] is False and n in core}
        shown = {path.split(".")[0] for p in probes_in(probes, name) for path in p.shows}  # the probes that run at its pin
        assert differ <= shown, (name, sorted(differ - shown))


def test_a_rule_without_a_title_is_refused_not_left_out() -> None:
    documents = _documents()
    record = documents["langgraph"]["modes"]["defaults"]["scenarios"]["always_deny"]
    record["reasons"] = [*record["reasons"], {"rule": "untitled_rule", "text": "x", "claims": []}]
    with pytest.raises(ValueError, match="untitled_rule"):
        collect(documents, "defaults")


def test_a_pinned_columns_findings_look_for_the_probes_that_run_at_its_pin() -> None:
    """``langgraph@0.6.11``'s findings link only probes whose ``PINS`` name 0.6.11; the default column's, the probes
    without ``PINS`` and those whose ``PINS`` name its version."""
    alone = Probe("langgraph", "probes/langgraph/always_deny.py", "always_deny", ("side_effects.c1.effects",))
    both = Probe("langgraph", "probes/langgraph/always_deny.py", "always_deny", ("side_effects.c1.effects",), "defaults", ("1.2.24", "0.6.11"))
    assert probes_in([alone, both], "langgraph") == [alone, both]
    assert probes_in([alone, both], "langgraph@0.6.11") == [both]
    entries: list[Entry] = [("always_deny", ["side_effects"], "text", [("side_effects", "c1")])]
    assert probes_for([alone], "langgraph@0.6.11", entries) == [] and probes_for([alone], "langgraph", entries) == [alone]
    assert probes_for([both], "langgraph@0.6.11", entries) == [both]


def test_the_mcp_section_gives_each_framework_the_counts_its_evidence_holds_for_each_server_fault() -> None:
    """"Frameworks as MCP clients": a row per framework measured in mcp mode, each cell read from that framework's record of
    the fault scenario (the server's count of the requests sent and keyed, the ledger's effects, the final status)."""
    documents = _documents()
    text = render(documents, declared_probes())
    section = text.split("## Frameworks as MCP clients", 1)[1].split("\n## ", 1)[0]
    measured = sorted(n for n, d in documents.items() if "mcp" in d.get("modes", {}) and n not in ("handwritten_mcp",))
    assert measured, "the committed evidence has an mcp mode"
    faults = section.split("What each client sent", 1)[0]
    rows = {line.split(" | ")[0].strip("| "): line.strip("| ").split(" | ")[1:] for line in faults.splitlines() if line.startswith("| ") and "---" not in line}
    for name in measured:
        record = documents[name]["modes"]["mcp"]["scenarios"]["mcp_server_dies_after_effect"]
        sent = record["mcp_client"]["calls"]["c1"]
        effects = record["columns"]["side_effects"]["framework"]["c1"]["effects"]
        answers, ended = ", ".join(sent["answers"]), record["columns"]["status"]["framework"]
        expected = f"c1: sent {sent['sent']} ({answers}), {sent['keys']} with a key, {effects} effect{'' if effects == 1 else 's'}; ended {ended}"
        assert rows[name][0] == expected, (name, rows[name][0])
    assert rows["handwritten_mcp (the engine's)"][0] == "c1: 1 effect; ended completed"  # the contract: one effect, the uncertain call reconciled
    sent = section.split("What each client sent", 1)[1]
    lines = {line.split(" | ")[0].strip("| "): line.strip("| ").split(" | ")[1:] for line in sent.splitlines() if line.startswith("| ") and "---" not in line}
    for name in measured:
        records = documents[name]["modes"]["mcp"]["scenarios"]
        clients = [r["mcp_client"] for r in records.values() if r.get("mcp_client")]
        listed = records["basic_react_loop"]["mcp_client"]
        assert lines[name][0] == str(listed["lists"]), name
        assert lines[name][1] == f"{listed['relays']} ({sum(c['sent'] for c in listed['calls'].values())} calls)", name
        assert lines[name][2] == str(sum(c["keys"] for client in clients for c in client["calls"].values())), name
        echoed = sorted({m for client in clients for m in client["meta"] if not m.startswith("io.modelcontextprotocol/")})
        assert lines[name][3] == (", ".join(f"`{m}`" for m in echoed) or "none"), name
        changed = sorted({tool for client in clients for tool in client["schemas"]})
        assert lines[name][4] == ", ".join(f"`{t}`" for t in changed) if changed else lines[name][4].startswith("none of "), name
