/**
 * Makes an error without capturing a stack trace. Under overload the provider rejects thousands of calls a second
 * (shed, superseded, abandoned when their deadline passed — the last two internal); capturing a stack for each cost more CPU than the calls
 * themselves — leaving less for the calls being served — and would show only the committer's own frames, made on a
 * timer or a microtask, never the caller's.
 */
export function unstacked<E extends Error>(make: () => E): E {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
