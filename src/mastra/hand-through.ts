/**
 * Gives `outer` every method and accessor of `inner` that `outer`'s own classes do not define — down to, not
 * including, `base` (the class both extend) — as an own property that reaches `inner` at the moment of the call. A
 * pubsub from a newer Mastra keeps what it has when it is wrapped (`trimTopic`, and whatever comes after it), even
 * where the `PubSub` class this package was built against names no such member, or gives it a default that would
 * otherwise answer in the inner's place.
 *
 * Data properties are state, not members, and are left alone; so are symbols, and the names in `withheld` (members
 * `outer` answers from elsewhere, or leaves out on purpose). Called once, at construction.
 */
export function handThrough(outer: object, inner: object, base: object, withheld: Iterable<string> = []): void {
  const own = namesFrom(Object.getPrototypeOf(outer) as object | null, base);
  for (const name of Object.getOwnPropertyNames(outer)) own.add(name);
  for (const name of withheld) own.add(name);
  for (const [name, descriptor] of membersOf(inner)) {
    if (own.has(name)) continue;
    const target = inner as Record<string, unknown>;
    if (descriptor.get !== undefined || descriptor.set !== undefined) {
      Object.defineProperty(outer, name, {
        configurable: true,
        enumerable: false,
        get: descriptor.get === undefined ? undefined : () => target[name],
        set: descriptor.set === undefined ? undefined : (value: unknown) => void (target[name] = value),
      });
    } else if (typeof descriptor.value === 'function') {
      Object.defineProperty(outer, name, {
        configurable: true,
        enumerable: false,
        writable: true,
        // Looked up at each call, and called on the inner: an inner that replaces its method later is still heard.
        value: (...args: unknown[]) => (target[name] as (...a: unknown[]) => unknown)(...args),
      });
    }
  }
}

/** Names defined on `from` and its prototypes up to, not including, `stop`. */
function namesFrom(from: object | null, stop: object): Set<string> {
  const names = new Set<string>();
  for (let proto = from; proto !== null && proto !== stop && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    for (const name of Object.getOwnPropertyNames(proto)) names.add(name);
  }
  return names;
}

/** Every string-named member of `value` and its prototypes, the nearest definition of each, without `Object`'s. */
function membersOf(value: object): Map<string, PropertyDescriptor> {
  const members = new Map<string, PropertyDescriptor>();
  for (let proto: object | null = value; proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor' || members.has(name)) continue;
      members.set(name, Object.getOwnPropertyDescriptor(proto, name)!);
    }
  }
  return members;
}
