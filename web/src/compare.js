// Two runs side by side: the step where their paths part, and how their memories differ at each step.
import {api, badge, enc, fill, h, shown} from "./dom.js";

function side(step) {
  return step ? `${step.state}${step.event ? ` (by ${step.event})` : ""}` : "—";
}

/** The comparison of two runs (the compare API's view): who they are, where they part, each step. */
export function comparison(view) {
  const link = (run) => [h("a", {href: `#/runs/${enc(run.run_id)}`}, h("code", {}, run.run_id)), " ", badge(run.status)];
  const parted = view.parted_at === null
    ? "Their paths do not part."
    : `Their paths part at step ${view.parted_at}.`;
  return [
    h("p", {}, "A: ", link(view.a), " · B: ", link(view.b)),
    h("p", {class: "parted", role: "status"}, parted),
    h("table", {class: "compare"},
      h("caption", {class: "visually-hidden"}, "Each step of both runs and the memory fields that differ"),
      h("thead", {}, h("tr", {}, ["step", "A", "B", "memory fields that differ"].map((c) => h("th", {scope: "col"}, c)))),
      h("tbody", {}, view.steps.map((s) => h("tr", {class: s.step === view.parted_at ? "parted" : ""},
        h("th", {scope: "row", class: "num"}, String(s.step)), h("td", {}, side(s.a)), h("td", {}, side(s.b)),
        h("td", {}, s.differs.length ? h("ul", {}, s.differs.map((d) => h("li", {},
          h("code", {}, d.field || "(memory)"), ": A ", shown(d.a), " · B ", shown(d.b)))) : "none"))))),
  ];
}

/** Show runs `a` and `b` compared in `main`. */
export async function comparePage(main, a, b) {
  const view = await api(`/inspector/api/compare/${enc(a)}/${enc(b)}`);
  fill(main, h("h1", {tabindex: "-1"}, "Two runs side by side"), comparison(view));
  document.body.dataset.ready = "compare";
}
