// Waiting for a state, never for a clock: `waitFor(read)` polls `read()` (sync or async) until it answers something
// truthy, and fails saying what was awaited when `timeoutMs` passes first.
export async function waitFor(read, what, { timeoutMs = 10000, everyMs = 10 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** A logger that keeps what it is told, by level. */
export function keptLogger() {
  const lines = { info: [], warn: [], error: [] };
  return {
    lines,
    info: (message) => lines.info.push(message),
    warn: (message) => lines.warn.push(message),
    error: (message) => lines.error.push(message),
  };
}
