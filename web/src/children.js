// A run's child runs: the tree of its children (nested under theirs), its parent, the steps that started them.
import {badge, enc, h} from "./dom.js";

const runLink = (runId) => h("a", {href: `#/runs/${enc(runId)}`}, h("code", {}, runId));

function node(child) {
  const place = child.index >= 0 ? ` #${child.index}` : "";
  const started = child.step === null || child.step === undefined ? `effect ${child.seq}`
    : h("a", {href: "#", class: "started-at", onclick: (e) => {
      e.preventDefault();
      document.dispatchEvent(new CustomEvent("agentsm-step", {detail: child.step}));
    }}, `step ${child.step}`);
  return h("li", {class: "child", "data-run": child.run_id},
    runLink(child.run_id), " ", badge(child.status),
    child.state ? ` in ${child.state}` : "",
    h("span", {class: "meta"}, ` · ${child.program}${place} · started at `, started),
    child.holder ? h("span", {class: "holder"}, ` · held by ${child.holder}`) : null,
    child.outcome ? h("span", {class: "meta"}, ` · ${child.outcome}`) : null,
    child.children.length ? h("ul", {class: "children"}, child.children.map(node)) : null);
}

/** The run's children as a tree, each with its status, state and a link to its page; null: it has none. */
export function childrenTree(children) {
  if (!children?.length) return null;
  return h("section", {class: "children-tree", "aria-labelledby": "children-h"},
    h("h2", {id: "children-h"}, `Child runs (${children.length})`),
    h("ul", {class: "children"}, children.map(node)));
}

/** "Child of run P (effect S)", linking to the parent's page; null for a run that is nobody's child. */
export function parentLine(parent) {
  if (!parent) return null;
  return h("p", {class: "child-of"}, "Child run of ", runLink(parent.run_id),
    ` (its effect ${parent.seq}${parent.index >= 0 ? `, child #${parent.index}` : ""})`);
}

/** The children a step started, as links (empty when it started none). */
export function startedBy(step) {
  const ids = step.children ?? [];
  return ids.length ? ["Started ", ids.map((id, i) => [i ? ", " : "", runLink(id)])] : [];
}
