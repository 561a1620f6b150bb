// Server-Sent Events read with fetch (so the token's header goes along; EventSource cannot send headers).
import {ApiError, authorized, detail} from "./dom.js";

const RETRY_MS = 1000;

// Every stream still listening. Chromium does not end a streamed fetch when its page is left: it keeps the
// connection to read the rest, and an event stream has no rest, so each visit left one open until the
// browser's six connections to the server were taken and the next page waited forever. Leaving the page
// (and a page the back/forward cache keeps) closes them here; main.js shows a restored page again.
const open = new Set();
window.addEventListener("pagehide", () => {
  for (const controller of open) controller.abort();
  open.clear();
});

/** Dispatch each complete event in `text` to `onEvent({event, data, id})`; return what is left unfinished. */
function parse(text, onEvent, last) {
  const blocks = text.split(/\r?\n\r?\n/);
  const rest = blocks.pop();
  for (const block of blocks) {
    let event = "message";
    const data = [];
    let id = null;
    for (const line of block.split(/\r?\n/)) {
      if (!line || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
      else if (field === "id") id = value;
    }
    if (id !== null) last.id = id;
    if (data.length) onEvent({event, data: data.join("\n"), id});
  }
  return rest;
}

/**
 * Listen to `path`'s events until `close()`; reconnect after a drop with `Last-Event-ID`.
 * `opened` settles when the first response arrived (rejects with the server's refusal).
 */
export function listen(path, onEvent) {
  const controller = new AbortController();
  open.add(controller);
  controller.signal.addEventListener("abort", () => open.delete(controller));
  const last = {id: null};
  let first = true;
  let resolveOpened;
  let rejectOpened;
  const opened = new Promise((resolve, reject) => {
    resolveOpened = resolve;
    rejectOpened = reject;
  });
  async function once() {
    const headers = authorized({accept: "text/event-stream"});
    if (last.id !== null) headers["last-event-id"] = last.id;
    const response = await fetch(path, {headers, signal: controller.signal, cache: "no-store"});
    if (!response.ok) {
      let body = null;
      try {
        body = await response.json();
      } catch {
        body = null;
      }
      throw new ApiError(response.status, detail(body, response.status));
    }
    if (first) resolveOpened();
    first = false;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const {value, done} = await reader.read();
      if (done) return;
      buffer = parse(buffer + value, onEvent, last);
    }
  }
  (async () => {
    while (!controller.signal.aborted) {
      try {
        await once();
      } catch (error) {
        if (first) {
          rejectOpened(error);
          return;
        }
      }
      if (controller.signal.aborted) return;
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  })();
  return {opened, close: () => controller.abort()};
}
