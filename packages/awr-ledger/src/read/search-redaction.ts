import type { Kysely } from "kysely";
import { findSecret, REDACTED } from "../secrets/index.js";
import type { LedgerSchema } from "../storage/schema.js";
import type { SearchHit } from "./search-hit.js";

/**
 * The secret policy on search output (docs/design/secret-boundaries.md, section 3): text stored
 * before the policy, or under an older version of it, never leaves through a hit. A hit whose
 * identity (key, title, work item, source path) holds a credential is left out; a summary
 * holding one is shown as `[redacted]`, and so is the snippet when the whole field it is cut
 * from holds one (a snippet window may cut the label off and leave the value). Sources and
 * writes are checked when recorded, so on a ledger kept under the policy this changes nothing.
 */
export async function withoutSecrets(
  db: Kysely<LedgerSchema>,
  hits: readonly SearchHit[],
): Promise<SearchHit[]> {
  const entityKeys = hits.filter((h) => h.origin === "source").map((h) => h.external_key);
  const bodies = new Map<string, string>();
  if (entityKeys.length > 0) {
    const rows = await db
      .selectFrom("entities")
      .select(["key", "body"])
      .where("key", "in", entityKeys)
      .execute();
    for (const row of rows) bodies.set(row.key, row.body);
  }
  const out: SearchHit[] = [];
  for (const hit of hits) {
    const identity = [
      hit.external_key,
      hit.title,
      hit.work_item_key ?? "",
      hit.source_ref?.path ?? "",
    ];
    if (identity.some((text) => findSecret(text) !== undefined)) continue;
    const summaryHeld = findSecret(hit.summary) !== undefined;
    const snippetHeld =
      summaryHeld ||
      findSecret(hit.snippet) !== undefined ||
      findSecret(bodies.get(hit.external_key) ?? "") !== undefined;
    if (!summaryHeld && !snippetHeld) {
      out.push(hit);
      continue;
    }
    out.push({
      ...hit,
      summary: summaryHeld ? REDACTED : hit.summary,
      snippet: snippetHeld ? REDACTED : hit.snippet,
    });
  }
  return out;
}
