// The run inspector: hash routes (the JSON API keeps /runs and /machines), one page at a time.
import {announce, fill, h} from "./dom.js";
import {comparePage} from "./compare.js";
import {experimentCasePage, experimentPage, experimentsPage} from "./experiments.js";
import {machinePage, machinesPage} from "./machine.js";
import {runPage} from "./run.js";
import {runsPage} from "./runs.js";
import {threadPage, threadsPage} from "./threads.js";
import {forgetToken, hasToken, tokenPage} from "./token.js";

const main = document.getElementById("main");
let cleanup = null;
let generation = 0;

function route() {
  const hash = location.hash.replace(/^#/, "") || "/";
  const [path, search = ""] = hash.split("?");
  const params = new URLSearchParams(search);
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "runs" && parts[1]) return [`Run ${parts[1]}`, () => runPage(main, parts[1], params)];
  if (parts[0] === "threads" && parts[1]) return [`Thread ${parts[1]}`, () => threadPage(main, parts[1], params)];
  if (parts[0] === "threads") return ["Threads", () => threadsPage(main, params)];
  if (parts[0] === "machines" && parts[1]) return [`Machine ${parts[1]}`, () => machinePage(main, parts[1])];
  if (parts[0] === "machines") return ["Machines", () => machinesPage(main)];
  if (parts[0] === "experiments" && parts[2] === "vs" && parts[4]) {
    return [`Case ${parts[4]} in ${parts[1]} and ${parts[3]}`, () => experimentCasePage(main, parts[1], parts[3], parts[4], params)];
  }
  if (parts[0] === "experiments" && parts[1]) return [`Experiment ${parts[1]}`, () => experimentPage(main, parts[1], params)];
  if (parts[0] === "experiments") return ["Experiments", () => experimentsPage(main)];
  if (parts[0] === "compare" && parts[2]) return [`Compare ${parts[1]} and ${parts[2]}`, () => comparePage(main, parts[1], parts[2])];
  return ["Runs", () => runsPage(main, params)];
}

async function show() {
  const mine = ++generation;
  cleanup?.();
  cleanup = null;
  delete document.body.dataset.ready;
  const [title, page] = route();
  document.title = `${title} · agentsm inspector`;
  try {
    const done = await page();
    if (mine !== generation) return done?.();
    cleanup = done ?? null;
    performance.mark("inspector-ready");
    // After the frame that draws it: a rAF callback runs before that frame's paint, a task it queues after.
    requestAnimationFrame(() => setTimeout(() => mine === generation && performance.mark("inspector-painted")));
    main.querySelector("h1")?.focus({preventScroll: true});
    announce(`${title} shown`);
  } catch (error) {
    if (mine !== generation) return;
    if (error.status === 401) {
      const refused = hasToken();
      forgetToken();
      document.title = "Token · agentsm inspector";
      tokenPage(main, refused, show);
      return;
    }
    fill(main, h("h1", {tabindex: "-1"}, title), h("p", {class: "alert", role: "alert"}, error.message));
    document.body.dataset.ready = "error";
  }
}

// The skip link focuses the page's content; following its href would change the route.
document.querySelector("a.skip").addEventListener("click", (event) => {
  event.preventDefault();
  main.focus();
});
window.addEventListener("hashchange", show);
// A page the back/forward cache restores had its streams closed when it was left (stream.js): show it anew.
window.addEventListener("pageshow", (event) => {
  if (event.persisted) show();
});
show();
