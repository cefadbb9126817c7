import { LedgerError } from "../errors.js";
import { findSecretInValue } from "./find-in-value.js";
import { findSecret } from "./find-secret.js";
import { SECRET_POLICY_VERSION, secretRefusal } from "./policy.js";

/**
 * Refuses `value` (a string or a JSON-like value) if it holds a secret: throws
 * `LedgerError("RuleViolation", "<what> contains a credential; remove it and pass a reference",
 * { policy_version, category, path?, line? })`. Call it before anything is journaled or
 * committed, so a refused write leaves no trace. `what` names the input for the user ("the
 * input", "the checkpoint digest"); it must never be built from the value. Nothing in the
 * error (message or details) contains any part of the value.
 */
export function assertNoSecret(value: unknown, what = "the input"): void {
  if (typeof value === "string") {
    const found = findSecret(value);
    if (found === undefined) return;
    throw new LedgerError(
      "RuleViolation",
      secretRefusal(what),
      { policy_version: SECRET_POLICY_VERSION, category: found.category, line: found.line },
      { next: secretNext(what) },
    );
  }
  const found = findSecretInValue(value);
  if (found === undefined) return;
  throw new LedgerError(
    "RuleViolation",
    secretRefusal(what),
    {
      policy_version: SECRET_POLICY_VERSION,
      category: found.category,
      path: found.path,
      ...(found.line === undefined ? {} : { line: found.line }),
    },
    { next: secretNext(what) },
  );
}

/** The fix for a refused credential: take it out of `what`, keep a reference to it instead. */
function secretNext(what: string): string {
  return `Remove the credential from ${what} (details name where it is, never the value) and pass a reference instead, such as the name of the environment variable or file that holds it; then retry.`;
}
