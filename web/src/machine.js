// A machine's page: its graph with the verifier's findings marked, and which stored runs its code would diverge on.
import {api, badge, enc, fill, h} from "./dom.js";
import {drawGraph} from "./graph.js";

function findingsList(view) {
  if (!view.findings.length) return h("p", {class: "ok"}, "The verifier proves every property of this graph.");
  return h("ul", {class: "findings"}, view.findings.map((f) => h("li", {},
    h("strong", {}, `${f.code} ${f.property}: `), f.message, f.hint ? h("p", {class: "hint"}, f.hint) : null)));
}

function checksTable(view) {
  if (view.check_error) return h("p", {class: "alert", role: "alert"}, view.check_error);
  if (!view.checks.length) return h("p", {}, "No unfinished run of this machine is stored.");
  return h("table", {class: "checks"},
    h("caption", {class: "visually-hidden"}, "Unfinished stored runs replayed against the code served now"),
    h("thead", {}, h("tr", {}, ["run", "status", "stored by", "verdict"].map((c) => h("th", {scope: "col"}, c)))),
    h("tbody", {}, view.checks.map((c) => h("tr", {class: c.ok ? "" : "diverges", "data-run": c.run_id},
      h("th", {scope: "row"}, h("a", {href: `#/runs/${enc(c.run_id)}${c.step >= 0 ? `?step=${c.step}` : ""}`}, c.run_id)),
      h("td", {}, badge(c.status)),
      h("td", {}, c.changed ? "an older version" : "this version"),
      h("td", {}, c.ok ? "replays as it ran" : c.unreadable ? `unreadable: ${c.detail}` : `diverges${c.step >= 0 ? ` at step ${c.step}` : ""}: ${c.detail}`)))));
}

/** Show machine `name` in `main`. */
export async function machinePage(main, name) {
  const view = await api(`/inspector/api/machines/${enc(name)}`);
  const graph = await drawGraph(view.graph, name);
  graph.mark({counts: new Map(), visited: new Set(), current: ""});
  fill(main,
    h("h1", {tabindex: "-1"}, "Machine ", h("code", {}, view.name)),
    h("p", {}, "Fingerprint ", h("code", {}, view.fingerprint), " · ",
      h("a", {href: `#/?machine=${enc(view.name)}`}, "its runs")),
    h("section", {"aria-labelledby": "graph-h"}, h("h2", {id: "graph-h"}, "Graph"),
      h("p", {class: "hint"}, "States and transitions the verifier flags are drawn in red with their codes."),
      graph.figure),
    h("section", {"aria-labelledby": "findings-h"}, h("h2", {id: "findings-h"}, "What the verifier found"), findingsList(view)),
    h("section", {"aria-labelledby": "checks-h"}, h("h2", {id: "checks-h"}, "Stored runs against this code"),
      h("p", {class: "hint"}, "Each unfinished run is replayed against the machine served now (no effect is performed)."),
      checksTable(view)));
  document.body.dataset.ready = "machine";
}

/** The machines served, each linked to its page. */
export async function machinesPage(main) {
  const found = await api("/machines");
  const machines = Array.isArray(found) ? found : found.machines ?? [];
  fill(main, h("h1", {tabindex: "-1"}, "Machines"),
    h("ul", {}, machines.map((m) => h("li", {}, h("a", {href: `#/machines/${enc(m.name)}`}, m.name)))));
  document.body.dataset.ready = "machines";
}
