// The runs list: status, machine, state, steps, effects, age; filters; pages; live through /events.
import {age, announce, api, badge, enc, fill, h} from "./dom.js";
import {listen} from "./stream.js";
import {threadLink} from "./threads.js";

const STATUSES = ["", "running", "waiting", "ready", "finished", "failed"];
const PAGE = 50;

function query(params) {
  const parts = Object.entries(params).filter(([, v]) => v !== "" && v !== undefined && v !== null);
  return parts.length ? "?" + parts.map(([k, v]) => `${k}=${enc(v)}`).join("&") : "";
}

// The threads (and turns) the listed runs are turns of, read with each page: run id -> [{thread_id, turn}].
let turnsOf = {};

function threadCell(run) {
  const turns = turnsOf[run.run_id] ?? [];
  return h("td", {class: "thread"}, turns.slice(0, 3).map((t, i) => [i ? ", " : "", threadLink(t.thread_id, t.turn)]),
    turns.length > 3 ? ` and ${turns.length - 3} more` : "");
}

function row(run, now) {
  const created = run.created ?? 0;
  return h("tr", {"data-run": run.run_id},
    h("th", {scope: "row"}, h("a", {href: `#/runs/${enc(run.run_id)}`}, run.run_id)),
    h("td", {}, badge(run.status)),
    h("td", {}, h("a", {href: `#/machines/${enc(run.machine)}`}, run.machine)),
    h("td", {}, run.state ?? ""),
    h("td", {class: "num"}, String(run.steps ?? 0)),
    h("td", {class: "num", title: run.status === "waiting" ? "done, and 1 waiting for an answer" : "done"},
      String(run.effects ?? 0) + (run.status === "waiting" ? " + 1 waiting" : "")),
    h("td", {class: "num", title: new Date(created * 1000).toISOString()}, age(now - created)),
    threadCell(run));
}

/** Show the runs list in `main`, filtered by the hash's query (status, machine, cursor). */
export async function runsPage(main, params) {
  const filters = {status: params.get("status") ?? "", machine: params.get("machine") ?? ""};
  const cursors = (params.get("trail") ?? "").split(",").filter(Boolean);
  const cursor = params.get("cursor") ?? "";
  let machines = [];
  try {
    const found = await api("/machines");
    machines = (Array.isArray(found) ? found : found.machines ?? []).map((m) => m.name ?? m);
  } catch {
    machines = [];
  }
  const go = (changes) => {
    const next = {...filters, cursor, trail: cursors.join(","), ...changes};
    location.hash = "#/" + query(next);
  };
  const status = h("select", {id: "filter-status", onchange: (e) => go({status: e.target.value, cursor: "", trail: ""})},
    STATUSES.map((s) => h("option", {value: s, selected: s === filters.status}, s || "any status")));
  const machine = h("select", {id: "filter-machine", onchange: (e) => go({machine: e.target.value, cursor: "", trail: ""})},
    ["", ...machines].map((m) => h("option", {value: m, selected: m === filters.machine}, m || "any machine")));
  const body = h("tbody");
  const count = h("p", {class: "count", "aria-live": "polite"});
  const previous = h("button", {type: "button", disabled: !cursor, onclick: () => {
    const trail = [...cursors];
    const back = trail.pop() ?? "";
    go({cursor: back, trail: trail.join(",")});
  }}, "← Newer");
  const next = h("button", {type: "button", disabled: true}, "Older →");
  fill(main,
    h("h1", {tabindex: "-1"}, "Runs"),
    h("form", {class: "filters", onsubmit: (e) => e.preventDefault()},
      h("label", {}, "Status ", status), h("label", {}, "Machine ", machine)),
    h("table", {class: "runs"},
      h("caption", {class: "visually-hidden"}, "Stored runs, newest first"),
      h("thead", {}, h("tr", {},
        ["Run", "Status", "Machine", "State", "Steps", "Effects", "Age", "Thread"].map((c, i) =>
          h("th", {scope: "col", class: i > 3 && i < 7 ? "num" : ""}, c)))),
      body),
    count,
    h("nav", {class: "pages", "aria-label": "Pages of runs"}, previous, next));

  async function load() {
    const page = await api("/runs" + query({...filters, limit: PAGE, cursor}));
    const runs = page.runs ?? page;
    turnsOf = runs.length ? await api("/inspector/api/turns-of?" + runs.map((r) => `run=${enc(r.run_id)}`).join("&")) : {};
    const now = Date.now() / 1000;
    fill(body, runs.map((r) => row(r, now)));
    if (!runs.length) body.append(h("tr", {}, h("td", {colspan: 8}, "No runs match.")));
    count.textContent = `${runs.length} run${runs.length === 1 ? "" : "s"} on this page`;
    next.disabled = !page.next;
    next.onclick = () => go({cursor: page.next, trail: [...cursors, cursor].join(",")});
    document.body.dataset.ready = "runs";
  }
  // One stream of every run's changes: a listed run's row changes in place; a run that joins or leaves
  // this page (new on the first page, or a status the filter no longer admits) reloads the page.
  const admits = (run) => (!filters.status || run.status === filters.status) && (!filters.machine || run.machine === filters.machine);
  let reloading = null;
  const reload = () => {
    reloading ??= load()
      .catch((e) => announce(`The list could not be refreshed: ${e.message}`))
      .finally(() => { reloading = null; });
  };
  const changes = listen("/events", ({event, data}) => {
    if (event !== "message") return;
    const run = JSON.parse(data);
    const shown = [...body.querySelectorAll("tr[data-run]")].find((r) => r.dataset.run === run.run_id);
    if (shown && admits(run)) {
      shown.replaceWith(row(run, Date.now() / 1000));
      announce(`Run ${run.run_id} is ${run.status}.`);
    } else if (shown || (!cursor && admits(run))) reload();
  });
  try {
    await changes.opened;  // the stream sends what changes after it opened: the list below misses nothing
  } catch (error) {
    announce(`Runs will not update live: ${error.message}`);
  }
  try {
    await load();
  } catch (error) {
    changes.close();
    throw error;
  }
  return () => changes.close();
}
