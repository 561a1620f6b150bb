// A run's page: graph with the path, a step control with memory and changes, effects, chat, answer, fork, compare.
import {announce, api, badge, enc, fill, h, shown} from "./dom.js";
import {drawGraph, loadGraphviz} from "./graph.js";
import {memories, pathAt} from "./memory.js";
import {forkForm, pendingPanel} from "./actions.js";
import {journalTable, traceDetails, transcriptList} from "./tables.js";
import {listen} from "./stream.js";
import {childrenTree, parentLine, startedBy} from "./children.js";

const LIVE = new Set(["running", "ready", "waiting"]);

const count = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

// A record counts the effects that have their outcome; the one a waiting run waits on is said apart, so a fork that
// waits on its first effect reads "0 effects done, 1 waiting for an answer", not "0 effects".
const effectsOf = (run) =>
  count(run.effects ?? 0, "effect") + (run.status === "waiting" ? " done, 1 waiting for an answer" : "");

const TAIL = 20;

// A long list shows its last TAIL items, and all of them once asked (for that field, at every step after): a
// memory that grows as the run goes (an agent's history) is drawn in the time of the items shown.
function valueCell(field, value, whole, redraw) {
  if (!Array.isArray(value) || value.length <= 2 * TAIL || whole.has(field)) return h("pre", {class: "value"}, shown(value));
  const first = value.length - TAIL;
  const all = h("button", {type: "button", class: "show-all", onclick: () => {
    whole.add(field);
    redraw();
    document.querySelector(`table.memory tr[data-field="${CSS.escape(field)}"] pre`)?.focus();
  }}, `Show all ${value.length}`);
  return [
    h("p", {class: "earlier"}, `${value.length} items; the last ${TAIL} (from item ${first + 1}): `, all),
    h("pre", {class: "value", tabindex: "-1"}, shown(value.slice(first))),
  ];
}

function memoryTable(memory, previous, changed, whole, redraw) {
  if (memory === null || typeof memory !== "object" || Array.isArray(memory)) {
    return h("pre", {class: "value"}, shown(memory));
  }
  return h("table", {class: "memory"},
    h("caption", {class: "visually-hidden"}, "Memory fields"),
    h("thead", {}, h("tr", {}, h("th", {scope: "col"}, "field"), h("th", {scope: "col"}, "value"))),
    h("tbody", {}, Object.entries(memory).map(([field, value]) => {
      const isChanged = changed.has(field);
      return h("tr", {class: isChanged ? "changed" : "", "data-field": field},
        h("th", {scope: "row"}, field, isChanged ? h("span", {class: "visually-hidden"}, " (changed)") : null),
        h("td", {}, valueCell(field, value, whole, redraw)));
    })));
}

function changeList(step, before) {
  const changes = step.changes ?? [];
  if (!("changes" in step)) return h("p", {}, "The run starts here.");
  if (!changes.length) return h("p", {}, "No field changed.");
  return h("ul", {class: "changes"}, changes.map((c) => h("li", {},
    h("code", {}, c.field || "(memory)"), ": ",
    c.removed ? "removed" : "append" in c
      ? `appended ${c.append.length} item${c.append.length === 1 ? "" : "s"}: ${shown(c.append)}`
      : [h("del", {}, shown(before?.[c.field])), " → ", h("ins", {}, shown(c.value))])));
}

function header(view) {
  const run = view.run;
  const parent = run.parent
    ? h("p", {}, "Forked from ", h("a", {href: `#/runs/${enc(run.parent)}?step=${run.parent_step}`}, run.parent),
      ` at step ${run.parent_step} · `, h("a", {href: `#/compare/${enc(run.parent)}/${enc(run.run_id)}`}, "compare with its parent"))
    : null;
  const forks = view.forks.length
    ? h("p", {}, "Forks: ", view.forks.map((f, i) => [i ? ", " : "",
      h("a", {href: `#/runs/${enc(f.run_id)}`}, f.run_id), ` (step ${f.step}, ${f.status}, `,
      h("a", {href: `#/compare/${enc(run.run_id)}/${enc(f.run_id)}`}, "compare"), ")"]))
    : null;
  const turns = (view.threads ?? []).length
    ? h("p", {class: "turn-of"}, view.threads.map((t, i) => [i ? "; " : "", `Turn ${t.turn} of thread `,
      h("a", {href: `#/threads/${enc(t.thread_id)}?turn=${t.turn}`}, t.thread_id)]))
    : null;
  return h("header", {class: "run-head"},
    h("h1", {tabindex: "-1"}, "Run ", h("code", {}, run.run_id), " ", badge(run.status)),
    h("p", {}, "Machine ", h("a", {href: `#/machines/${enc(run.machine)}`}, run.machine),
      ` · state ${run.state || "?"} · ${count(run.steps, "step")} · ${effectsOf(run)}`),
    parentLine(view.parent), turns, parent, forks);
}

function problems(view) {
  return [
    view.run.status === "failed"
      ? h("div", {class: "alert failed", role: "alert"}, h("strong", {}, "This run failed. "), view.failure || "No reason was stored.")
      : null,
    view.changed ? h("div", {class: "alert changed", role: "alert"}, view.changed) : null,
    view.problem ? h("div", {class: "alert", role: "alert"}, "Shown as far as it replays: ", view.problem) : null,
  ];
}

/** A finished run's result (an agent's typed value): its type's name and its fields as JSON. */
function resultPanel(view) {
  if (!view.result) return null;
  return h("section", {class: "result", "aria-labelledby": "result-h"},
    h("h2", {id: "result-h"}, "Result ", h("code", {class: "result-type"}, view.result.type)),
    h("pre", {class: "result-value"}, JSON.stringify(view.result.value, null, 2)));
}

function compareForm(runId) {
  const other = h("input", {id: "compare-with", name: "other", required: true, autocomplete: "off", placeholder: "another run's id"});
  return h("form", {class: "compare", onsubmit: (e) => {
    e.preventDefault();
    location.hash = `#/compare/${enc(runId)}/${enc(other.value.trim())}`;
  }}, h("label", {for: "compare-with"}, "Compare with run "), other, " ", h("button", {type: "submit"}, "Compare"));
}

/** Show run `runId` in `main`, at the hash's `step` (default: its last step); returns a cleanup. */
export async function runPage(main, runId, params) {
  const asked = api(`/inspector/api/runs/${enc(runId)}`);
  loadGraphviz();  // while the server makes the view
  let view = await asked;
  let index = null;
  let atEnd = true;
  let move = null;
  let toStep = null;
  let closed = false;
  const whole = new Set();  // the long list fields shown whole
  const wanted = params.has("step") ? Number(params.get("step")) : null;

  async function build() {
    const steps = view.steps.length ? view.steps : [{step: 0, state: view.run.state, memory: null}];
    const memoryAt = memories(steps);
    const graph = await drawGraph(view.graph, view.run.machine);
    const slider = h("input", {type: "range", id: "step", min: 0, max: steps.length - 1, value: 0, "aria-describedby": "step-label"});
    const label = h("p", {id: "step-label", class: "step-label", "aria-live": "polite"});
    const guard = h("p", {class: "guardrail", hidden: ""});
    const started = h("p", {class: "started-children"});
    const memoryBox = h("div", {class: "memory-box"});
    const changesBox = h("div", {class: "changes-box"});
    const fork = forkForm(view, () => ({step: steps[index].step, get memory() { return memoryAt(index); }}));
    const show = (i) => {
      index = Math.max(0, Math.min(steps.length - 1, i));
      atEnd = index === steps.length - 1;
      const step = steps[index];
      slider.value = String(index);
      slider.setAttribute("aria-valuetext", `step ${step.step}: ${step.state}`);
      label.textContent = `Step ${step.step} of ${steps[steps.length - 1].step}: ${step.state}` +
        (step.event ? ` (from ${step.from} by ${step.event})` : "");
      // A step out of a guarding state: what its guardrails did, a trip marked.
      guard.hidden = !step.guardrail;
      guard.textContent = step.guardrail ? step.guardrail.label : "";
      guard.classList.toggle("tripped", Boolean(step.guardrail?.tripped));
      fill(started, startedBy(step));
      const changed = new Set((step.changes ?? []).map((c) => c.field));
      const [memory, before] = [memoryAt(index), memoryAt(index - 1)];
      fill(memoryBox, memoryTable(memory, before, changed, whole, () => show(index)));
      fill(changesBox, changeList(step, before));
      graph.mark(pathAt(steps, index));
      fork.update();
      document.body.dataset.step = String(step.step);
    };
    slider.addEventListener("input", () => show(Number(slider.value)));
    const previous = h("button", {type: "button", onclick: () => show(index - 1), "aria-label": "previous step"}, "◀ Previous");
    const next = h("button", {type: "button", onclick: () => show(index + 1), "aria-label": "next step"}, "Next ▶");
    fill(main,
      header(view), problems(view), resultPanel(view), pendingPanel(view, refresh, () => follow(true)),
      h("div", {class: "run-grid"},
        h("section", {"aria-labelledby": "graph-h"}, h("h2", {id: "graph-h"}, "Graph"), graph.figure),
        h("section", {"aria-labelledby": "steps-h", class: "steps"},
          h("h2", {id: "steps-h"}, "Step by step"),
          h("div", {class: "slider"}, h("label", {for: "step"}, "Step "), slider, previous, next),
          h("p", {class: "hint"}, "Keys: ← and → (or the slider's own keys, Home and End) move one step."),
          label, guard, started,
          h("h3", {}, "What changed from the step before"), changesBox,
          h("h3", {}, "Memory after this step"), memoryBox)),
      fork.element,
      compareForm(view.run.run_id),
      childrenTree(view.children),
      transcriptList(view.transcript),
      journalTable(view.journal),
      traceDetails(view.trace));
    const at = wanted === null ? steps.length - 1 : steps.findIndex((s) => s.step === wanted);
    show(index === null ? (at < 0 ? steps.length - 1 : at) : (atEnd ? steps.length - 1 : index));
    move = (delta) => show(index + delta);
    toStep = (number) => show(steps.findIndex((s) => s.step === number));
    slider.addEventListener("input", () => {
      atEnd = index === steps.length - 1;
    });
    atEnd = index === steps.length - 1;
    document.body.dataset.ready = "run";
  }

  let stamp = "";
  async function refresh() {
    const fresh = await api(`/inspector/api/runs/${enc(runId)}`);
    const next = JSON.stringify([fresh.run, fresh.steps.length, fresh.journal.length, fresh.forks, fresh.children]);
    if (next === stamp) return;
    stamp = next;
    view = fresh;
    await build();
    announce(`Run ${runId} is ${view.run.status} in ${view.run.state} after ${count(view.run.steps, "step")}.`);
    follow();
  }

  // Live: the run's event stream says when something happened; a cheap look at its record every second
  // catches what a stream cannot (an answer from another process, a server without the stream). Only a
  // changed record fetches the whole view again.
  let seen = "";
  async function check() {
    const record = await api(`/runs/${enc(runId)}`);
    const now = JSON.stringify([record.status, record.steps, record.effects, record.updated]);
    if (now !== seen) {
      seen = now;
      await refresh();
    }
  }
  let events = null;
  let timer = null;
  // A child moved (its event in this run's stream): the tree is fetched again, at most every quarter second.
  let childTimer = null;
  function childMoved() {
    if (childTimer || closed) return;
    childTimer = setTimeout(() => {
      childTimer = null;
      refresh().catch(() => {});
    }, 250);
  }
  function follow(answered = false) {
    const live = answered || LIVE.has(view.run.status);
    if (live && !events && !closed) {
      events = listen(`/runs/${enc(runId)}/events`, (e) => (e.event === "child" ? childMoved() : check().catch(() => {})));
      events.opened.catch(() => {});  // the look at the record every second still follows the run
    }
    if (live && !timer && !closed) timer = setInterval(() => check().catch(() => {}), 1000);
    if (!live) {
      events?.close();
      events = null;
      clearInterval(timer);
      timer = null;
    }
  }

  const keys = (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || e.target.closest?.("input, textarea, select, [contenteditable]")) return;
    if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
      e.preventDefault();
      move?.(e.key === "ArrowLeft" ? -1 : 1);
    }
  };
  const goTo = (e) => toStep?.(e.detail);
  stamp = JSON.stringify([view.run, view.steps.length, view.journal.length, view.forks, view.children]);
  await build();
  document.addEventListener("keydown", keys);
  document.addEventListener("agentsm-step", goTo);
  follow();
  return () => {
    closed = true;
    document.removeEventListener("keydown", keys);
    document.removeEventListener("agentsm-step", goTo);
    events?.close();
    clearInterval(timer);
    clearTimeout(childTimer);
  };
}
