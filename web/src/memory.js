// A run's memory at every step, rebuilt from step 0's memory and each step's changes.

/** The memory after each step: steps[i] -> memories[i] (unchanged fields share their values). */
export function memories(steps) {
  const found = [];
  let memory = null;
  for (const step of steps) {
    if ("memory" in step) memory = step.memory;
    else memory = applyChanges(memory, step.changes ?? []);
    found.push(memory);
  }
  return found;
}

function applyChanges(memory, changes) {
  if (memory === null || typeof memory !== "object" || Array.isArray(memory)) {
    const whole = changes.find((c) => c.field === "");
    return whole ? whole.value : memory;
  }
  const next = {...memory};
  for (const change of changes) {
    if (change.field === "") return change.value;
    if ("append" in change) next[change.field] = [...(Array.isArray(next[change.field]) ? next[change.field] : []), ...change.append];
    else next[change.field] = change.value;
  }
  return next;
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
