// Threads: the list (newest first, paged), and a thread as a chat: each turn's message, its answer with the tool
// calls that led to it folded under it, a link to its run, a waiting turn's answer, and "edit and run again".
import {age, announce, api, badge, enc, fill, h, shown} from "./dom.js";
import {pendingPanel} from "./actions.js";

const PAGE = 50;
const ENDED = new Set(["finished", "failed"]);

function query(params) {
  const parts = Object.entries(params).filter(([, v]) => v !== "" && v !== undefined && v !== null);
  return parts.length ? "?" + parts.map(([k, v]) => `${k}=${enc(v)}`).join("&") : "";
}

const short = (text, limit = 80) => (text.length > limit ? text.slice(0, limit - 1) + "…" : text);

/** A link to a thread, at a turn if given. */
export function threadLink(threadId, turn) {
  return h("a", {href: `#/threads/${enc(threadId)}${turn === undefined ? "" : `?turn=${turn}`}`, class: "thread-link"},
    threadId, turn === undefined ? "" : ` · turn ${turn}`);
}

function threadRow(thread, now) {
  const last = thread.last;
  return h("tr", {"data-thread": thread.thread_id},
    h("th", {scope: "row"}, threadLink(thread.thread_id)),
    h("td", {}, h("a", {href: `#/machines/${enc(thread.machine)}`}, thread.machine)),
    h("td", {class: "num"}, String(thread.turns)),
    h("td", {}, last ? [badge(last.status), " ", short(last.message)] : "no turn yet"),
    h("td", {}, thread.parent ? [threadLink(thread.parent, thread.parent_turn)] : ""),
    h("td", {class: "num", title: new Date(thread.updated * 1000).toISOString()}, age(now - thread.updated)));
}

/** Show the threads list in `main`: newest first, 50 to a page, filtered by machine or parent (the forks of one). */
export async function threadsPage(main, params) {
  const filters = {machine: params.get("machine") ?? "", parent: params.get("parent") ?? ""};
  const cursors = (params.get("trail") ?? "").split(",").filter(Boolean);
  const cursor = params.get("cursor") ?? "";
  const go = (changes) => {
    location.hash = "#/threads" + query({...filters, cursor, trail: cursors.join(","), ...changes});
  };
  const page = await api("/threads" + query({...filters, limit: PAGE, cursor}));
  const now = Date.now() / 1000;
  const rows = page.threads.map((t) => threadRow(t, now));
  const previous = h("button", {type: "button", disabled: !cursor, onclick: () => {
    const trail = [...cursors];
    const back = trail.pop() ?? "";
    go({cursor: back, trail: trail.join(",")});
  }}, "← Newer");
  const next = h("button", {type: "button", disabled: !page.next,
    onclick: () => go({cursor: page.next, trail: [...cursors, cursor].join(",")})}, "Older →");
  const narrowed = filters.parent
    ? h("p", {}, "Forks of ", threadLink(filters.parent), " · ", h("a", {href: "#/threads"}, "every thread"))
    : filters.machine ? h("p", {}, `Threads of ${filters.machine} · `, h("a", {href: "#/threads"}, "every thread")) : null;
  fill(main,
    h("h1", {tabindex: "-1"}, "Threads"),
    narrowed,
    h("table", {class: "threads"},
      h("caption", {class: "visually-hidden"}, "Stored threads, newest first"),
      h("thead", {}, h("tr", {},
        ["Thread", "Machine", "Turns", "Last turn", "Forked from", "Updated"].map((c) =>
          h("th", {scope: "col", class: c === "Turns" || c === "Updated" ? "num" : ""}, c)))),
      h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", {colspan: 6}, "No threads.")))),
    h("p", {class: "count"}, `${rows.length} thread${rows.length === 1 ? "" : "s"} on this page`),
    h("nav", {class: "pages", "aria-label": "Pages of threads"}, previous, next));
  document.body.dataset.ready = "threads";
}

function step(item) {
  if ("said" in item) return h("li", {class: "said-step"}, h("p", {}, item.said));
  const failed = item.error ? " error" : "";
  return h("li", {class: `call${failed}`},
    h("p", {}, h("code", {class: "tool-name"}, item.name), h("code", {}, `(${JSON.stringify(item.arguments)})`)),
    item.result === null
      ? h("p", {class: "hint"}, "no result")
      : h("pre", {class: "value"}, (item.error ? "error: " : "→ ") + (typeof item.result === "string" ? item.result : shown(item.result))));
}

function answerOf(turn) {
  const parts = [];
  if (turn.steps.length) {
    // Folded: the steps are drawn when first opened (a long thread has many turns with tool calls).
    const calls = turn.steps.filter((s) => !("said" in s)).length;
    const folded = h("details", {class: "steps"},
      h("summary", {}, `${calls} tool call${calls === 1 ? "" : "s"}` + (calls === turn.steps.length ? "" : " and notes")));
    folded.addEventListener("toggle", () => {
      if (folded.open && folded.childNodes.length === 1) folded.append(h("ol", {}, turn.steps.map(step)));
    });
    parts.push(folded);
  }
  if (turn.answer !== null) parts.push(h("p", {class: "answer"}, turn.answer));
  return parts;
}

// A turn the thread's summary stands for: its answer is read when asked (the thread so far after it).
function compressed(threadId, turn, box) {
  const button = h("button", {type: "button", class: "show-turn", onclick: async () => {
    button.disabled = true;
    try {
      const read = await api(`/inspector/api/threads/${enc(threadId)}/turns/${turn.turn}`);
      fill(box, h("span", {class: "who"}, "Assistant"), answerOf({...turn, ...read}));
    } catch (error) {
      box.append(h("p", {class: "alert"}, `Not read: ${error.message}`));
      button.disabled = false;
    }
  }}, "Show its answer");
  return [h("p", {class: "hint"}, "Compressed: the model is no longer sent this turn. "), button];
}

// "Edit and run again from here": the form is made when asked for (a long thread has a message per turn).
function editForm(threadId, turn) {
  const place = h("div", {class: "edit-place"});
  const open = h("button", {type: "button", class: "edit-turn", onclick: () => {
    if (!place.firstChild) place.append(editing(threadId, turn, place));
    place.hidden = false;
    place.querySelector("textarea").focus();
  }}, "Edit and run again from here");
  return [open, place];
}

function editing(threadId, turn, place) {
  const area = h("textarea", {id: `edit-${turn.turn}`, rows: 3, value: turn.message, "aria-label": `Turn ${turn.turn}'s message, edited`});
  const message = h("p", {class: "outcome", role: "alert"});
  const submit = h("button", {type: "submit", class: "run-again"}, "Run again from here");
  return h("form", {class: "edit", onsubmit: async (e) => {
    e.preventDefault();
    submit.disabled = true;
    message.textContent = "Running the edited turn in a new thread…";
    try {
      const made = await api(`/threads/${enc(threadId)}/fork`, {turn: turn.turn, message: area.value});
      announce(`Forked into thread ${made.thread_id}`);
      location.hash = `#/threads/${enc(made.thread_id)}`;
    } catch (error) {
      message.textContent = `Not run again: ${error.message}`;
      submit.disabled = false;
    }
  }}, area, h("div", {}, submit, " ", h("button", {type: "button", onclick: () => { place.hidden = true; }}, "Cancel")), message);
}

function turnItem(view, turn, refresh, following) {
  const threadId = view.thread.thread_id;
  const run = h("a", {href: `#/runs/${enc(turn.run_id)}`, class: "turn-run"}, `run ${turn.run_id}`);
  // a handoff: the turn ran on the agent holding the thread, and may have handed it on
  const by = turn.program && turn.program !== view.thread.machine ? ` by ${turn.program}` : "";
  const handed = turn.holder && turn.holder !== turn.program
    ? h("span", {class: "handed"}, ` · handed to ${turn.holder}`)
    : null;
  const reply = h("div", {class: "said assistant"}, h("span", {class: "who"}, "Assistant"));
  if (turn.shown) reply.append(...answerOf(turn));
  else if (ENDED.has(turn.status) && turn.status !== "failed") reply.append(...compressed(threadId, turn, reply));
  if (turn.status === "failed") reply.append(h("p", {class: "alert"}, "This turn failed. ", turn.failure ?? ""));
  else if (!ENDED.has(turn.status) && turn.status !== "waiting") reply.append(h("p", {class: "hint"}, `The turn is ${turn.status}…`));
  const waiting = turn.status === "waiting" && turn.pending
    ? pendingPanel({run: {run_id: turn.run_id, status: "waiting"}, pending: turn.pending}, refresh, following)
    : null;
  return h("li", {class: "turn", "data-turn": turn.turn, id: `turn-${turn.turn}`},
    h("div", {class: "said user"},
      h("span", {class: "who"}, `User · turn ${turn.turn} · `, run, by, " ", badge(turn.status), handed),
      h("p", {}, turn.message),
      editForm(threadId, turn)),
    reply.childNodes.length > 1 ? reply : null,
    waiting);
}

/** Show thread `threadId` in `main` as a chat; follows it while its last turn has not ended. Returns a cleanup. */
export async function threadPage(main, threadId, params) {
  let view = await api(`/inspector/api/threads/${enc(threadId)}`);
  let timer = null;
  let closed = false;
  let seen = "";

  const stamp = (thread) => JSON.stringify([thread.turns, thread.updated, thread.last?.status ?? null]);
  async function refresh() {
    view = await api(`/inspector/api/threads/${enc(threadId)}`);
    build();
    announce(`Thread ${threadId} has ${view.thread.turns} turn${view.thread.turns === 1 ? "" : "s"}.`);
    follow();
  }
  async function check() {
    const thread = await api(`/threads/${enc(threadId)}`);
    if (stamp(thread) !== seen) {
      seen = stamp(thread);
      await refresh();
    }
  }
  function follow(answered = false) {
    const last = view.turns[view.turns.length - 1];
    const live = answered || (last && !ENDED.has(last.status));
    if (live && !timer && !closed) timer = setInterval(() => check().catch(() => {}), 1000);
    if (!live && timer) {
      clearInterval(timer);
      timer = null;
    }
  }

  function build() {
    const thread = view.thread;
    const forked = thread.parent
      ? [" · forked from ", threadLink(thread.parent, thread.parent_turn)]
      : null;
    const held = thread.holder && thread.holder !== thread.machine
      ? h("span", {class: "holder"}, " · held by ", h("code", {}, thread.holder))
      : null;
    fill(main,
      h("header", {class: "run-head"},
        h("h1", {tabindex: "-1"}, "Thread ", h("code", {}, thread.thread_id)),
        h("p", {}, "Machine ", h("a", {href: `#/machines/${enc(thread.machine)}`}, thread.machine),
          held, ` · ${thread.turns} turn${thread.turns === 1 ? "" : "s"}`, forked, " · ",
          h("a", {href: `#/threads?parent=${enc(thread.thread_id)}`}, "its forks"))),
      view.problem ? h("div", {class: "alert", role: "alert"}, view.problem) : null,
      view.summary ? h("details", {class: "summary"}, h("summary", {}, "Summary of the compressed turns"), h("p", {}, view.summary)) : null,
      h("ol", {class: "chat thread", "aria-label": "The conversation"},
        view.turns.map((turn) => turnItem(view, turn, refresh, () => follow(true)))));
    document.body.dataset.ready = "thread";
  }

  build();
  seen = stamp({turns: view.thread.turns, updated: view.thread.updated, last: {status: view.turns.at(-1)?.status}});
  if (params.has("turn")) document.getElementById(`turn-${params.get("turn")}`)?.scrollIntoView();
  follow();
  return () => {
    closed = true;
    clearInterval(timer);
  };
}
