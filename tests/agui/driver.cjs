// Runs the official AG-UI client (@ag-ui/client's HttpAgent) against an endpoint and prints, as JSON lines,
// every event it received and where each run left the agent (its state, messages and pending interrupts).
//
//   node driver.cjs PREFIX < plan.json      (PREFIX: the folder whose node_modules holds @ag-ui/client)
//
// plan.json: {"url", "headers"?, "threadId", "messages", "state"?, "runs": [{"runId", "answer"?}, ...]}.
// A run with "answer" ({"status", "payload"?}) answers every interrupt the previous run ended with.
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
