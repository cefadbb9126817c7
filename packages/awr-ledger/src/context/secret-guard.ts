import { LedgerError } from "../errors.js";
import { findSecret, findSecretInValue, SECRET_POLICY_VERSION } from "../secrets/index.js";
import type { ContextChunk } from "./context-records.js";

/**
 * The secret policy on context packets (docs/design/secret-boundaries.md, section 4). Sources
 * and writes are checked when recorded; this keeps text stored before the policy (or under an
 * older version) out of every packet, full or delta. Each selected record is checked on its own
 * (never the joined text: a record ending in `token:` is not a secret with the next one). A
 * required record holding a credential makes the packet ContextIncomplete, naming the record and
 * never the value, with no packet, hash or text; an optional one is left out before budgeting.
 */
export function withoutSecretChunks(chunks: readonly ContextChunk[]): ContextChunk[] {
  const kept: ContextChunk[] = [];
  for (const c of chunks) {
    const found = findSecret(c.text) ?? findSecret(c.key);
    if (found === undefined) {
      kept.push(c);
      continue;
    }
    if (!c.required) continue;
    throw heldFact(
      c.section,
      findSecret(c.key) === undefined ? c.key : "(withheld)",
      found.category,
    );
  }
  return kept;
}

/** The same for a whole result (L0): any stored value holding a credential refuses it. */
export function assertNoSecretFact<T>(result: T, section: string): T {
  const found = findSecretInValue(result);
  if (found !== undefined) throw heldFact(section, found.path, found.category);
  return result;
}

function heldFact(section: string, ref: string, category: string): LedgerError {
  return new LedgerError(
    "ContextIncomplete",
    `the required ${section} record ${ref} holds a credential; remove it at its source and reindex`,
    { section, ref, category, policy_version: SECRET_POLICY_VERSION },
  );
}
