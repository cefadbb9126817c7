import { PROTO_KEY_ALIAS } from "@awr/awr-ledger/catalog";

/**
 * Renames every own `__proto__` key of a freshly parsed JSON message to PROTO_KEY_ALIAS, in
 * place and without recursion. JSON.parse keeps such a key as data, but the SDK's schemas copy
 * objects by assignment, which would turn it into the copy's prototype and drop it unseen; renamed,
 * it reaches the tool's schema check and is refused by name like any unknown argument.
 */
export function shieldPrototypeKeys(value: unknown): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object") continue;
    if (!Array.isArray(node) && Object.hasOwn(node, "__proto__")) {
      const own = Object.getOwnPropertyDescriptor(node, "__proto__")?.value;
      // Deletes the own data property (Reflect: the key is data here, not the accessor).
      Reflect.deleteProperty(node, "__proto__");
      Object.defineProperty(node, PROTO_KEY_ALIAS, {
        value: own,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    for (const child of Object.values(node)) stack.push(child);
  }
}

/** True when a text may hold a `__proto__` key (the cheap test before the walk). */
export function mentionsProto(text: string): boolean {
  return text.includes("__proto__");
}
