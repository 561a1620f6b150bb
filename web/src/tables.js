// The run's effects (journal), its transitions (trace) and a built-in agent's conversation.
import {h, shown} from "./dom.js";

/** Every effect: what it was, its outcome in words, how long it took, its idempotency key. */
export function journalTable(journal) {
  return h("section", {"aria-labelledby": "journal-h", class: "effects"},
    h("h2", {id: "journal-h"}, `Effects (${journal.length})`),
    journal.length ? h("table", {class: "journal"},
      h("caption", {class: "visually-hidden"}, "Effects in the order they were performed"),
      h("thead", {}, h("tr", {}, ["#", "effect", "outcome", "took", "idempotency key"].map((c) => h("th", {scope: "col"}, c)))),
      h("tbody", {}, journal.map((j) => h("tr", {class: j.failed ? "failed" : j.waiting ? "waiting" : ""},
        h("td", {class: "num"}, String(j.seq)), h("td", {}, j.effect, (j.children ?? []).length
          ? h("span", {class: "effect-children"}, " → ", j.children.map((id, i) => [i ? ", " : "",
            h("a", {href: `#/runs/${encodeURIComponent(id)}`}, id)]))
          : null),
        h("td", {}, j.failed ? h("strong", {}, j.outcome) : j.outcome),
        h("td", {class: "num"}, j.took ?? ""), h("td", {}, h("code", {}, j.key))))))
      : h("p", {}, "No effect was performed."));
}

/** Every transition and effect request, rendered when opened (a long run's trace is long). */
export function traceDetails(trace) {
  const details = h("details", {class: "trace"}, h("summary", {}, `Trace (${trace.length} entries)`));
  details.addEventListener("toggle", () => {
    if (!details.open || details.querySelector("table")) return;
    details.append(h("table", {},
      h("thead", {}, h("tr", {}, ["step", "state", "event", "to", "data"].map((c) => h("th", {scope: "col"}, c)))),
      h("tbody", {}, trace.map((e) => h("tr", {},
        h("td", {class: "num"}, String(e.step)), h("td", {}, e.state), h("td", {}, e.event),
        h("td", {}, e.target), h("td", {}, e.data))))));
  });
  return details;
}

/** A built-in agent's run as a chat: the task, replies with tool calls, tool results, approvals. */
export function transcriptList(lines) {
  if (!lines) return null;
  return h("section", {"aria-labelledby": "chat-h"},
    h("h2", {id: "chat-h"}, "Conversation"),
    h("ol", {class: "chat"}, lines.map((line) => h("li", {class: `said ${line.role}${line.ok === false ? " error" : ""}`},
      h("span", {class: "who"}, line.role === "tool" ? `tool ${line.name}` : line.role),
      line.text ? h("p", {}, line.text) : null,
      (line.calls ?? []).map((c) => h("p", {class: "call"}, "calls ", h("code", {}, `${c.name}(${shown(c.arguments)})`))),
      line.arguments ? h("p", {class: "call"}, h("code", {}, shown(line.arguments))) : null))));
}
