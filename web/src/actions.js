// What a person does to a run: answer the effect it waits on, fork it from a step with edited fields.
import {announce, api, enc, fill, h, shown} from "./dom.js";

/**
 * The pending effect with approve and reject (with a reason), answered once through the server (which then runs
 * the run on in its own process); the page follows the run live while the answer's request waits for it to settle.
 * A run that waits on its children shows the first waiting child's effect (its approval), answered through the run.
 */
export function pendingPanel(view, refresh, following) {
  const pending = view.pending;
  if (!pending || view.run.status !== "waiting") return null;
  const message = h("p", {class: "outcome", role: "alert"});
  const reason = h("input", {id: "reject-reason", name: "reason", autocomplete: "off", placeholder: "why not"});
  const buttons = [];
  async function answer(body) {
    buttons.forEach((b) => (b.disabled = true));
    try {
      // a child's approval (the run waits on its children) is answered through this run, which then runs them on
      const below = pending.run_id && pending.run_id !== view.run.run_id ? {run_id: pending.run_id} : {};
      const settled = api(`/runs/${enc(view.run.run_id)}/pending/${pending.seq}/answer`, {...body, ...below, resume: true});
      following();
      await settled;
      message.textContent = `Answered (${body.decision}).`;
      announce(message.textContent);
      await refresh();
    } catch (error) {
      message.textContent = `Not answered: ${error.message}`;
      buttons.forEach((b) => (b.disabled = false));
    }
  }
  const approve = h("button", {type: "button", id: "approve", onclick: () => answer({decision: "approve"})}, "Approve");
  const reject = h("button", {type: "submit", id: "reject"}, "Reject");
  buttons.push(approve, reject);
  return h("section", {class: "pending", "aria-labelledby": "pending-h"},
    h("h2", {id: "pending-h"}, "Waiting for an answer"),
    h("p", {}, h("strong", {}, pending.effect), ` (effect #${pending.seq}, idempotency key `, h("code", {}, pending.key), ")"),
    pending.run_id && pending.run_id !== view.run.run_id
      ? h("p", {class: "pending-child"}, "Asked inside child run ",
        h("a", {href: `#/runs/${enc(pending.run_id)}`}, h("code", {}, pending.run_id)),
        "; answering it here runs the child on, then this run.")
      : null,
    h("div", {class: "answer"}, approve,
      h("form", {onsubmit: (e) => {
        e.preventDefault();
        answer({decision: "reject", reason: reason.value});
      }}, h("label", {for: "reject-reason"}, "Reason "), reason, " ", reject)),
    message);
}

/** "Fork from step N": every memory field as JSON to edit; the server converts or refuses each edit. */
export function forkForm(view, current) {
  const fields = h("div", {class: "fork-fields"});
  const heading = h("span");
  const message = h("p", {class: "outcome", role: "alert"});
  let originals = {};
  let step = 0;
  const form = h("form", {class: "fork", onsubmit: async (e) => {
    e.preventDefault();
    const set = {};
    for (const area of fields.querySelectorAll("textarea")) {
      if (area.value === originals[area.name]) continue;
      try {
        set[area.name] = JSON.parse(area.value);
      } catch {
        message.textContent = `${area.name}: ${JSON.stringify(area.value)} is not JSON (a string is quoted)`;
        area.focus();
        return;
      }
    }
    try {
      const made = await api(`/runs/${enc(view.run.run_id)}/fork`, {step, set});
      const id = made.run_id ?? made.run?.run_id;
      announce(`Forked into ${id}`);
      location.hash = `#/runs/${enc(id)}`;
    } catch (error) {
      message.textContent = `Not forked: ${error.message}`;
    }
  }},
  h("p", {class: "hint"}, "Edit any field (as JSON); the fork starts from this step with the edited memory."),
  fields, h("button", {type: "submit", id: "fork"}, "Fork"), message);
  // The fields are filled when the panel opens or is open (not at every step shown: a long memory makes many).
  let filled = false;
  const ensure = () => {
    if (filled) return;
    filled = true;
    const at = current();
    const memory = at.memory && typeof at.memory === "object" && !Array.isArray(at.memory) ? at.memory : {};
    originals = Object.fromEntries(Object.entries(memory).map(([k, v]) => [k, shown(v)]));
    fill(fields, Object.entries(originals).map(([name, text]) => h("label", {class: "field"},
      h("span", {}, name),
      h("textarea", {name, id: `fork-${name}`, rows: Math.min(8, text.split("\n").length), value: text}))));
  };
  const element = h("details", {class: "fork-panel", id: "fork-panel"}, h("summary", {onclick: ensure}, heading), form);
  element.addEventListener("toggle", () => element.open && ensure());
  function update() {
    step = current().step;
    heading.textContent = `Fork from step ${step}`;
    message.textContent = "";
    filled = false;
    if (element.open) ensure();
  }
  return {element, update};
}
