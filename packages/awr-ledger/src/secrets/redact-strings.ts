import { findSecret } from "./find-secret.js";
import { REDACTED } from "./policy.js";

/**
 * `value` with every string that holds a credential replaced by `[redacted]`: the secret policy
 * on runtime text a tool returns as stored (docs/design/secret-boundaries.md, section 4). Writes
 * refuse such text, so only text stored before the policy, or by another implementation, is ever
 * replaced; the rest of the answer stays as it is. Each string is judged alone, never joined
 * with its neighbours. Walks plain arrays and objects (the JSON a tool answers) and returns
 * `value` itself when nothing is replaced.
 */
export function redactSecretStrings<T>(value: T): T {
  if (typeof value === "string") return (findSecret(value) === undefined ? value : REDACTED) as T;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const redacted = redactSecretStrings(item);
      if (redacted === item) return;
      copy ??= [...value];
      copy[i] = redacted;
    });
    return (copy ?? value) as T;
  }
  if (typeof value !== "object" || value === null) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const redacted = redactSecretStrings(item);
    if (redacted === item) continue;
    copy ??= { ...(value as Record<string, unknown>) };
    copy[key] = redacted;
  }
  return (copy ?? value) as T;
}
