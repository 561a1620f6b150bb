// Small DOM and HTTP helpers: build elements, call the JSON API, say things to screen readers.

/** An element: h("a", {href: "#/", class: "x", onclick: fn}, "text", child, ...). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key in el && !key.includes("-") && key !== "list") el[key] = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

/** Replace the children of an element. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** An error the API answered with: its HTTP status and the words it said. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** The words of an error body the API answered with. */
export function detail(body, status) {
  if (body && typeof body === "object") {
    const error = body.error ?? body;
    if (typeof error === "string") return error;
    if (typeof error.detail === "string") return error.detail;
    if (Array.isArray(error.detail)) return error.detail.map((d) => d.msg ?? JSON.stringify(d)).join("; ");
    if (error.detail) return JSON.stringify(error.detail);
  }
  return `the server answered ${status}`;
}

/** `headers` with the server's token, if the page was given one (see token.js). */
export function authorized(headers = {}) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? {...headers, authorization: `Bearer ${token}`} : headers;
}

export const TOKEN_KEY = "agentsm-inspector-token";

/** GET (or POST with a JSON body) a JSON route of the server. */
export async function api(path, body) {
  const init = body === undefined ? {headers: authorized()} : {
    method: "POST",
    headers: authorized({"content-type": "application/json"}),
    body: JSON.stringify(body),
  };
  const response = await fetch(path, init);
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = text;
  }
  if (!response.ok) throw new ApiError(response.status, detail(data, response.status));
  return data;
}

/** Say something politely to screen readers (and show it in the status line). */
export function announce(message) {
  const region = document.getElementById("status");
  if (region) region.textContent = message;
}

/** A short age: 42s, 7m, 3h, 2d (the same as `agentsm-runs list`). */
export function age(seconds) {
  for (const [unit, size] of [["d", 86400], ["h", 3600], ["m", 60]]) {
    if (seconds >= size) return `${Math.floor(seconds / size)}${unit}`;
  }
  return `${Math.max(0, Math.floor(seconds))}s`;
}

/** JSON for people: compact for short values, indented for long ones. */
export function shown(value) {
  const flat = JSON.stringify(value);
  return flat !== undefined && flat.length <= 80 ? flat : JSON.stringify(value, null, 2);
}

export const enc = encodeURIComponent;

/** A status badge. */
export function badge(status) {
  return h("span", {class: `badge ${status}`}, status);
}
