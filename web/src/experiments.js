// Experiments: every experiment in the store; one experiment's scores per case, filtered by evaluator and
// result; one case in two experiments, its grades side by side and its two runs compared.
import {age, api, badge, enc, fill, h} from "./dom.js";
import {comparison} from "./compare.js";

const RESULTS = ["", "passed", "failed"];

function query(params) {
  const parts = Object.entries(params).filter(([, v]) => v !== "" && v !== undefined && v !== null);
  return parts.length ? "?" + parts.map(([k, v]) => `${k}=${enc(v)}`).join("&") : "";
}

function score(value) {
  return value === null || value === undefined ? "—" : value.toFixed(2);
}

function rate(passed, runs) {
  return runs ? `${passed} of ${runs} (${Math.round((100 * passed) / runs)}%)` : "—";
}

/** A grade's verdict: passed, failed, or neither (a score or a label alone). */
function verdict(grade) {
  return grade.passed === true ? "passed" : grade.passed === false ? "failed" : "";
}

function gradeText(grade) {
  const parts = [verdict(grade), grade.score !== null ? `score ${score(grade.score)}` : "", grade.label ?? ""];
  return parts.filter(Boolean).join(", ") || "—";
}

function gradeItem(grade) {
  return h("li", {"data-evaluator": grade.evaluator, title: grade.reason || null},
    h("strong", {}, grade.evaluator), ": ", gradeText(grade), grade.reason ? h("span", {class: "hint"}, ` (${grade.reason})`) : null);
}

/** Show every experiment in the store. */
export async function experimentsPage(main) {
  const view = await api("/inspector/api/experiments");
  const now = Date.now() / 1000;
  const rows = view.experiments.map((e) => h("tr", {"data-experiment": e.name},
    h("th", {scope: "row"}, h("a", {href: `#/experiments/${enc(e.name)}`}, e.name)),
    h("td", {}, e.dataset), h("td", {}, h("code", {}, e.subject)),
    h("td", {class: "num"}, String(e.cases)), h("td", {class: "num"}, String(e.runs)),
    h("td", {class: "num"}, rate(e.passed, e.runs)), h("td", {class: "num"}, score(e.score)),
    h("td", {class: "num", title: new Date(e.created * 1000).toISOString()}, age(now - e.created))));
  fill(main,
    h("h1", {tabindex: "-1"}, "Experiments"),
    view.experiments.length ? h("table", {class: "experiments"},
      h("caption", {class: "visually-hidden"}, "Experiments in the store, newest first"),
      h("thead", {}, h("tr", {}, ["Experiment", "Dataset", "Subject", "Cases", "Runs", "Passed", "Mean score", "Age"]
        .map((c, i) => h("th", {scope: "col", class: i > 2 ? "num" : ""}, c)))),
      h("tbody", {}, rows))
      : h("p", {}, "No experiment is stored. Run one with ", h("code", {}, "agentsm-eval run"), "."));
  document.body.dataset.ready = "experiments";
}

/** Show experiment `name`: its case runs and grades, filtered by the hash's evaluator and result. */
export async function experimentPage(main, name, params) {
  const view = await api(`/inspector/api/experiments/${enc(name)}`);
  const filters = {evaluator: params.get("evaluator") ?? "", result: params.get("result") ?? "", with: params.get("with") ?? ""};
  const go = (changes) => { location.hash = `#/experiments/${enc(name)}` + query({...filters, ...changes}); };
  const select = (id, label, values, chosen, key, none) => h("label", {}, `${label} `,
    h("select", {id, onchange: (e) => go({[key]: e.target.value})},
      values.map((v) => h("option", {value: v, selected: v === chosen}, v || none))));
  const judged = (run) => filters.evaluator ? run.grades.find((g) => g.evaluator === filters.evaluator) : null;
  const shownRuns = view.case_runs.filter((run) => {
    if (filters.evaluator && !judged(run)) return false;
    const result = filters.evaluator ? verdict(judged(run)) : run.passed ? "passed" : "failed";
    return !filters.result || result === filters.result;
  });
  const caseLink = (run) => filters.with
    ? h("a", {href: `#/experiments/${enc(name)}/vs/${enc(filters.with)}/${enc(run.case)}?repeat=${run.repeat}`,
      title: `Compare with ${filters.with}`}, run.case)
    : run.case;
  const row = (run) => {
    const grade = judged(run);
    const result = grade ? verdict(grade) || gradeText(grade) : run.passed ? "passed" : "failed";
    return h("tr", {"data-case": run.case, "data-repeat": String(run.repeat)},
      h("th", {scope: "row"}, caseLink(run)), h("td", {class: "num"}, String(run.repeat)),
      h("td", {}, h("a", {href: `#/runs/${enc(run.run_id)}`}, h("code", {}, run.run_id))),
      h("td", {}, badge(run.status || "failed")),
      h("td", {class: "verdict"}, badge(result)),
      h("td", {class: "num"}, score(grade ? grade.score : run.score)),
      h("td", {}, run.error ? h("p", {class: "alert"}, run.error) : null,
        h("ul", {class: "grades"}, (grade ? [grade] : run.grades).map(gradeItem))));
  };
  const passed = shownRuns.filter((r) => r.passed).length;
  fill(main,
    h("h1", {tabindex: "-1"}, "Experiment ", h("code", {}, view.name)),
    h("p", {}, `Dataset ${view.dataset} · subject `, h("code", {}, view.subject), ` · ${view.repeats} repeat${view.repeats === 1 ? "" : "s"} a case · `,
      `passed ${rate(view.passed, view.runs)} · mean score ${score(view.score)}`),
    h("form", {class: "filters", onsubmit: (e) => e.preventDefault()},
      select("filter-evaluator", "Evaluator", ["", ...view.evaluators], filters.evaluator, "evaluator", "every evaluator"),
      select("filter-result", "Result", RESULTS, filters.result, "result", "any result"),
      select("compare-with", "Compare a case with", ["", ...view.others], filters.with, "with", "no other experiment")),
    h("table", {class: "case-runs"},
      h("caption", {class: "visually-hidden"}, "Each case's runs, their results, scores and grades"),
      h("thead", {}, h("tr", {}, ["Case", "Repeat", "Run", "Status", "Result", "Score", "Grades"]
        .map((c) => h("th", {scope: "col", class: c === "Repeat" || c === "Score" ? "num" : ""}, c)))),
      h("tbody", {}, shownRuns.length ? shownRuns.map(row) : h("tr", {}, h("td", {colspan: 7}, "No case run matches.")))),
    h("p", {class: "count", "aria-live": "polite"},
      `${shownRuns.length} of ${view.case_runs.length} case runs shown; ${passed} of them passed every evaluator`));
  document.body.dataset.ready = "experiment";
}

/** Show case `name` in experiments `a` and `b`: the grades side by side, then the two runs compared. */
export async function experimentCasePage(main, a, b, name, params) {
  const view = await api(`/inspector/api/experiments/${enc(a)}/${enc(b)}/cases/${enc(name)}`);
  const repeat = Number(params.get("repeat") ?? 0);
  const runA = view.a.runs.find((r) => r.repeat === repeat);
  const runB = view.b.runs.find((r) => r.repeat === repeat);
  const cell = (run, evaluator) => {
    const grade = run?.grades.find((g) => g.evaluator === evaluator);
    return h("td", {title: grade?.reason || null}, grade ? gradeText(grade) : "—", grade?.reason ? h("span", {class: "hint"}, ` (${grade.reason})`) : null);
  };
  const total = (run) => run ? `${run.passed ? "passed" : "failed"}, score ${score(run.score)}` : "not run";
  const experimentLink = (n) => h("a", {href: `#/experiments/${enc(n)}?with=${enc(n === a ? b : a)}`}, h("code", {}, n));
  const compared = runA && runB ? await api(`/inspector/api/compare/${enc(runA.run_id)}/${enc(runB.run_id)}`) : null;
  fill(main,
    h("h1", {tabindex: "-1"}, "Case ", h("code", {}, view.case), " in two experiments"),
    h("p", {}, "A: ", experimentLink(a), " · B: ", experimentLink(b), ` · repeat ${repeat}`),
    h("table", {class: "grades-compared"},
      h("caption", {class: "visually-hidden"}, "Each evaluator's grade of the case in both experiments"),
      h("thead", {}, h("tr", {}, h("th", {scope: "col"}, "Evaluator"), h("th", {scope: "col"}, `A: ${a}`), h("th", {scope: "col"}, `B: ${b}`))),
      h("tbody", {},
        view.evaluators.map((evaluator) => h("tr", {"data-evaluator": evaluator},
          h("th", {scope: "row"}, evaluator), cell(runA, evaluator), cell(runB, evaluator))),
        h("tr", {class: "total"}, h("th", {scope: "row"}, "the run"), h("td", {}, total(runA)), h("td", {}, total(runB))))),
    h("section", {"aria-labelledby": "runs-h"}, h("h2", {id: "runs-h"}, "The two runs side by side"),
      compared ? comparison(compared) : h("p", {}, "One of the experiments has no run of this case and repeat.")));
  document.body.dataset.ready = "experiment-case";
}
