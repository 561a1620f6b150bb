// A run's memory at any step, rebuilt from step 0's memory and each step's changes. A list that only grew shares
// one array with the steps before it (each step keeps its length), so rebuilding every step costs what the steps
// changed, not the steps times the memory's size; a step's memory is made whole only when it is shown.

/** A list that is the first `length` items of `items`, an array later steps may append to. */
class Grown {
  constructor(items, length) {
    this.items = items;
    this.length = length;
  }
}

const isFields = (memory) => memory !== null && typeof memory === "object" && !Array.isArray(memory);

/** A memory as its steps keep it: each list field a Grown over its own copy (the view's data is never changed). */
function kept(memory) {
  if (!isFields(memory)) return memory;
  return Object.fromEntries(Object.entries(memory).map(([k, v]) => [k, Array.isArray(v) ? new Grown(v.slice(), v.length) : v]));
}

/** The memory as the page shows it: every Grown made a list of its own. */
function whole(memory) {
  if (!isFields(memory)) return memory;
  return Object.fromEntries(Object.entries(memory).map(([k, v]) => [k, v instanceof Grown ? v.items.slice(0, v.length) : v]));
}

function appended(old, added) {
  let items;
  if (old instanceof Grown && old.length === old.items.length) items = old.items;  // the newest step: share it
  else items = old instanceof Grown ? old.items.slice(0, old.length) : Array.isArray(old) ? old.slice() : [];
  for (const item of added) items.push(item);
  return new Grown(items, items.length);
}

function applyChanges(memory, changes) {
  const whole = changes.find((c) => c.field === "");
  if (whole) return kept(whole.value);
  if (!isFields(memory)) return memory;
  const next = {...memory};
  for (const change of changes) {
    if (change.removed) delete next[change.field];
    else if ("append" in change) next[change.field] = appended(next[change.field], change.append);
    else next[change.field] = Array.isArray(change.value) ? new Grown(change.value.slice(), change.value.length) : change.value;
  }
  return next;
}

/** The memory after each step: `memoryAt(i)` is the memory after steps[i], a fresh object each call. */
export function memories(steps) {
  const found = [];
  let memory = null;
  for (const step of steps) {
    memory = "memory" in step ? kept(step.memory) : applyChanges(memory, step.changes ?? []);
    found.push(memory);
  }
  return (i) => whole(found[i]);
}

/** What the graph marks after step i: how often each row was taken, the states visited, the state now. */
export function pathAt(steps, i) {
  const counts = new Map();
  const visited = new Set([steps[0]?.state]);
  for (let k = 1; k <= i && k < steps.length; k++) {
    const key = `${steps[k].from}\u0000${steps[k].event}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    visited.add(steps[k].state);
  }
  return {counts, visited, current: steps[i]?.state};
}
