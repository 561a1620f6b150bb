// Runs the official AG-UI client (@ag-ui/client's HttpAgent) against an endpoint and prints, as JSON lines,
// every event it received and where each run left the agent (its state, messages and pending interrupts).
//
//   node driver.cjs PREFIX < plan.json      (PREFIX: the folder whose node_modules holds @ag-ui/client)
//
// plan.json: {"url", "headers"?, "threadId", "messages", "state"?, "runs": [{"runId", "answer"?, "say"?, "edit"?}]}.
// A run with "answer" ({"status", "payload"?}) answers every interrupt the previous run ended with.
// A run with "say" (text) first adds a user message (a new id), as a chat box does; one with "edit"
// ({"user": N, "content", "newId"?}) first edits the N-th user message the agent holds and drops every
// message after it, as a chat UI's "edit" does (keeping the message's id, or giving it "newId").
// Output lines: {"run": i, "event": {...}} per event; then {"run": i, "end": {state, messages, interrupts,
// result}} or {"run": i, "error": "..."} (the client refused the stream or the server failed the run).
"use strict";
const path = require("node:path");
const { HttpAgent } = require(path.join(process.argv[2], "node_modules", "@ag-ui", "client"));

function print(line) {
  process.stdout.write(JSON.stringify(line) + "\n");
}

async function main() {
  let text = "";
  for await (const chunk of process.stdin) text += chunk;
  const plan = JSON.parse(text);
  const agent = new HttpAgent({
    url: plan.url,
    headers: plan.headers ?? {},
    threadId: plan.threadId,
    initialMessages: plan.messages ?? [],
    initialState: plan.state ?? {},
  });
  let interrupts = [];
  for (const [index, run] of plan.runs.entries()) {
    if (run.say !== undefined) {
      agent.addMessage({ id: `said-${index}`, role: "user", content: run.say });
    }
    if (run.edit !== undefined) {
      const users = agent.messages.filter((message) => message.role === "user");
      const edited = users[run.edit.user];
      const at = agent.messages.indexOf(edited);
      const kept = agent.messages.slice(0, at);
      kept.push({ ...edited, id: run.edit.newId ?? edited.id, content: run.edit.content });
      agent.setMessages(kept);
    }
    const parameters = { runId: run.runId };
    if (run.answer !== undefined) {
      parameters.resume = interrupts.map((interrupt) => ({ interruptId: interrupt.id, ...run.answer }));
    }
    interrupts = [];
    const subscriber = {
      onEvent({ event }) {
        print({ run: index, event });
      },
      onRunFinishedEvent(params) {
        if (params.outcome === "interrupt") interrupts = params.interrupts;
      },
    };
    try {
      const { result } = await agent.runAgent(parameters, subscriber);
      print({
        run: index,
        end: { state: agent.state, messages: agent.messages, interrupts, result: result ?? null },
      });
    } catch (error) {
      print({ run: index, error: String(error && error.message ? error.message : error) });
    }
  }
}

main().catch((error) => {
  print({ fatal: String(error && error.stack ? error.stack : error) });
  process.exitCode = 1;
});
