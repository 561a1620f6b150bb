// A token-protected server: the page asks for its token once, keeps it in sessionStorage (this tab only) and
// sends it as `Authorization: Bearer` on every API call (dom.js `authorized`); never in an address.
import {TOKEN_KEY, api, fill, h} from "./dom.js";

const REFUSED = "The server refused this token (401 unauthorized): check it and try again.";

/** Ask for the token in `main`; once the server accepts it, call `accepted()`. `refused`: a kept one was refused. */
export function tokenPage(main, refused, accepted) {
  const input = h("input", {type: "password", id: "token", name: "token", autocomplete: "off", required: true, spellcheck: false});
  const message = h("p", {id: "token-message", role: "alert", class: refused ? "alert" : ""}, refused ? REFUSED : "");
  const submit = async (event) => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, input.value.trim());
    try {
      await api("/machines");
    } catch (error) {
      if (error.status === 401) sessionStorage.removeItem(TOKEN_KEY);
      message.textContent = error.status === 401 ? REFUSED : `The server could not be asked: ${error.message}`;
      message.className = "alert";
      input.select();
      return;
    }
    accepted();
  };
  fill(main,
    h("h1", {tabindex: "-1"}, "This server needs its token"),
    h("p", {}, "Give the token the server was started with (--token or $AGENTSM_RUNS_TOKEN). ",
      "This tab keeps it until it is closed and sends it with each request, never in an address."),
    h("form", {class: "token", onsubmit: submit},
      h("label", {for: "token"}, "Token "), input, " ", h("button", {type: "submit"}, "Open the runs")),
    message);
  document.body.dataset.ready = "token";
  input.focus();
}

/** True if the page holds a token (it was refused if the server answered 401 anyway). */
export function hasToken() {
  return Boolean(sessionStorage.getItem(TOKEN_KEY));
}

/** Forget the kept token. */
export function forgetToken() {
  sessionStorage.removeItem(TOKEN_KEY);
}
