// The report's only script: steps through what the page already holds. It computes nothing of the engine: the loop's
// replay (each event once, per event the step, the attempt and how many messages stand; the messages once) was written
// by loop_replay in harness/runner_side/publish/report/views.py from the engine's recorded trace.
"use strict";

// A scenario's driver steps, one more per click of ▶ (all of them with "all steps").
function setupStepper(section) {
  const rows = Array.from(section.querySelectorAll("tr.step"));
  const now = section.querySelector(".step-now");
  let current = 0;
  function show(index) {
    current = Math.max(0, Math.min(index, rows.length - 1));
    rows.forEach((row, i) => {
      row.hidden = i > current;
      row.classList.toggle("current", i === current);
    });
    now.textContent = String(current);
    section.dataset.current = String(current);
  }
  section.querySelector(".step-next").addEventListener("click", () => show(current + 1));
  section.querySelector(".step-prev").addEventListener("click", () => show(current - 1));
  section.querySelector(".step-all").addEventListener("click", () => show(rows.length - 1));
  show(0);
}

// The loop: one recorded event per click, for the scenario the failure-rate control picks.
function setupLoop() {
  const holder = document.getElementById("loop-data");
  if (!holder) return;
  const data = JSON.parse(holder.textContent);
  const rate = document.getElementById("failure-rate");
  const byId = (id) => document.getElementById(id);
  let run = null;
  let index = 0;

  function item(text, role) {
    const li = document.createElement("li");
    li.textContent = text;
    if (role) li.dataset.role = role;
    return li;
  }

  // The state after event `index`, as views.state_at reads it: the run's status only at its last event.
  function render() {
    const last = run.events.length - 1;
    byId("loop-event-index").textContent = String(index + 1);
    byId("loop-event-count").textContent = String(run.events.length);
    byId("loop-step").textContent = String(run.step[index]);
    byId("loop-max-steps").textContent = String(run.max_steps);
    byId("loop-attempt").textContent = String(run.attempt[index]);
    byId("loop-max-attempts").textContent = String(run.max_attempts);
    byId("loop-status").textContent = index === last ? run.status : "";
    const event = byId("loop-event");
    event.textContent = JSON.stringify(run.events[index], null, 1);
    event.dataset.kind = run.events[index].kind;
    const messages = byId("loop-messages");
    messages.replaceChildren(...run.messages.slice(0, run.shown[index]).map(([role, text]) => item(`${role}: ${text}`, role)));
    const events = byId("loop-events");
    events.replaceChildren(...run.events.slice(0, index + 1).map((e) => item(e.kind)));
    events.lastChild.classList.add("current");
  }

  function pick() {
    const id = data.order[Number(rate.value)];
    run = data.runs[id];
    index = 0;
    byId("failure-rate-label").textContent = `${run.rate} %: in this run ${run.failed} of ${run.attempts} attempts failed`;
    byId("loop-scenario").textContent = id;
    byId("loop-scenario").dataset.scenario = id;
    document.querySelectorAll(".loop-frameworks").forEach((div) => { div.hidden = div.dataset.scenario !== id; });
    render();
  }

  rate.addEventListener("input", pick);
  byId("loop-next").addEventListener("click", () => { index = Math.min(index + 1, run.events.length - 1); render(); });
  byId("loop-prev").addEventListener("click", () => { index = Math.max(index - 1, 0); render(); });
  byId("loop-end").addEventListener("click", () => { index = run.events.length - 1; render(); });
  pick();
}

// Beside the loop, the same scenario in every column: a copy of the scenario's own section (the page holds its bytes
// once), made before the steppers are set up so the copy steps on its own.
function copyLoopSections() {
  const sections = Array.from(document.querySelectorAll("section.scenario"));
  document.querySelectorAll(".loop-frameworks").forEach((div) => {
    const original = sections.find((s) => s.dataset.scenario === div.dataset.scenario);
    if (!original) return;
    const copy = original.cloneNode(true);
    copy.id = `loop-${div.dataset.scenario}`;
    div.replaceChildren(copy);
  });
}

copyLoopSections();
document.querySelectorAll("section.scenario").forEach(setupStepper);
setupLoop();
