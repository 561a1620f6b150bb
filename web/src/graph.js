// The machine's graph: DOT from the graph data, laid out and drawn by Graphviz (WebAssembly), then marked.
import {Graphviz} from "@hpcc-js/wasm-graphviz";
import {h, fill} from "./dom.js";

let loading = null;

function graphviz() {
  loading ??= Graphviz.load();
  return loading;
}

/** Start loading Graphviz's WebAssembly now (a page calls it before it waits for its data); drawing awaits it. */
export function loadGraphviz() {
  graphviz().catch(() => {});  // a failure is said where the graph is drawn
}

function q(text) {
  return `"${String(text).replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
}

/** The DOT text of a graph ({initial, states, rows}); state i has id s-i, row i has id r-i. */
export function toDot(graph) {
  const lines = [
    "digraph machine {",
    "  rankdir=LR; bgcolor=transparent; pad=0.2;",
    '  node [shape=box, style="rounded,filled", fillcolor="#ffffff", fontname="sans-serif", fontsize=11];',
    '  edge [fontname="sans-serif", fontsize=10];',
    '  "__start" [shape=point, id="start", width=0.12];',
    `  "__start" -> ${q(graph.initial)};`,
  ];
  graph.states.forEach((state, i) => {
    const attributes = [`id="s-${i}"`];
    const notes = [...state.codes];
    if (state.terminal) attributes.push("peripheries=2");
    if (state.budgeted) notes.push("budgeted");
    if (state.codes.length) attributes.push('color="#c62828"', 'fontcolor="#c62828"', "penwidth=2", 'class="finding"');
    attributes.push(`label=${q(state.name + (notes.length ? `\n(${notes.join(", ")})` : ""))}`);
    lines.push(`  ${q(state.name)} [${attributes.join(", ")}];`);
  });
  graph.rows.forEach((row, i) => {
    const attributes = [`id="r-${i}"`, `label=${q(row.event + (row.codes.length ? ` !${row.codes.join(",")}` : ""))}`];
    if (row.codes.length) attributes.push('color="#c62828"', 'fontcolor="#c62828"', "penwidth=2", 'class="finding"');
    lines.push(`  ${q(row.source)} -> ${q(row.target)} [${attributes.join(", ")}];`);
  });
  lines.push("}");
  return lines.join("\n");
}

/** The graph as a table (the text alternative): every row, and how often this run took it. */
function rowsTable(graph, caption) {
  const body = h("tbody");
  const cells = graph.rows.map((row) => {
    const count = h("td", {class: "num"}, "");
    body.append(h("tr", {},
      h("td", {}, row.source), h("td", {}, row.event), h("td", {}, row.target), count,
      h("td", {}, row.codes.join(", "))));
    return count;
  });
  const table = h("table", {class: "rows"},
    h("caption", {}, caption),
    h("thead", {}, h("tr", {},
      h("th", {scope: "col"}, "from"), h("th", {scope: "col"}, "event"), h("th", {scope: "col"}, "to"),
      h("th", {scope: "col"}, "taken"), h("th", {scope: "col"}, "findings"))),
    body);
  return {table, cells};
}

/**
 * Draw the graph into a <figure>: the picture, and its text alternative (a list of states and a table of rows).
 * Returns {figure, mark({counts, visited, current})} to mark a run's path on it.
 */
export async function drawGraph(graph, title) {
  const picture = h("div", {class: "picture", role: "img", "aria-label": `${title}: graph of ${graph.states.length} states and ${graph.rows.length} transitions, described in the table below`});
  const described = h("p", {class: "where"});
  const {table, cells} = rowsTable(graph, `${title}: every transition`);
  const states = h("p", {},
    `States: ${graph.states.map((s) => s.name + (s.terminal ? " (final)" : "") + (s.codes.length ? ` (${s.codes.join(", ")})` : "")).join(", ")}. Starts in ${graph.initial}.`);
  const figure = h("figure", {class: "graph"},
    picture,
    h("figcaption", {}, described, h("details", {class: "alt"}, h("summary", {}, "The graph as text"), states, table)));
  try {
    const svg = (await graphviz()).dot(toDot(graph));
    picture.innerHTML = svg;
    const element = picture.querySelector("svg");
    element?.setAttribute("aria-hidden", "true");
    element?.removeAttribute("height");  // its width (natural size) stays: CSS scales it down, never up
  } catch (error) {
    fill(picture, h("p", {class: "problem"}, `The graph cannot be drawn here (${error}); the table below lists it.`));
  }
  const labels = graph.rows.map((row, i) => picture.querySelector(`#r-${i} text:last-of-type`));
  const edges = graph.rows.map((_, i) => picture.querySelector(`#r-${i}`));
  const nodes = graph.states.map((_, i) => picture.querySelector(`#s-${i}`));

  function mark({counts, visited, current}) {
    graph.rows.forEach((row, i) => {
      const count = counts.get(`${row.source}\u0000${row.event}`) ?? 0;
      edges[i]?.classList.toggle("taken", count > 0);
      if (labels[i]) labels[i].textContent = row.event + (row.codes.length ? ` !${row.codes.join(",")}` : "") + (count ? ` ×${count}` : "");
      cells[i].textContent = count ? String(count) : "";
    });
    graph.states.forEach((state, i) => {
      nodes[i]?.classList.toggle("visited", visited.has(state.name));
      nodes[i]?.classList.toggle("current", state.name === current);
    });
    described.textContent = current ? `Now in ${current}; ${visited.size} state${visited.size === 1 ? "" : "s"} visited, taken transitions are drawn thick and counted.` : "";
  }
  return {figure, mark};
}
