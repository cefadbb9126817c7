import type { Kysely } from "kysely";
import { LedgerError } from "../errors.js";
import type { LedgerSchema } from "../storage/schema.js";
import { projectionAt } from "./projection-cache.js";
import { shortText } from "./work-brief.js";

/**
 * A goal, plan or rule by key or id as of `revision`: its brief (severity
 * and scope are a rule's, null otherwise), every field with `full`, and where its source says it.
 */
export async function entityObject(
  db: Kysely<LedgerSchema>,
  revision: number,
  kind: string,
  reference: string,
) {
  const projection = await projectionAt(db, revision);
  const byKey = projection.entity(reference);
  const entity =
    byKey?.kind === kind ? byKey : projection.ofKind(kind).find((e) => e.id === reference);
  if (entity === undefined) {
    throw new LedgerError(
      "NotFound",
      `no ${kind} "${reference}" in the indexed sources; find its key with awr search --kind ${kind}, or reindex if it was just added`,
      { kind, reference },
    );
  }
  const attribute = (name: string) => entity.attributes[name] ?? null;
  const core = {
    id: entity.id,
    external_key: entity.key,
    title: entity.title,
    revision: projection.revisions.get(entity.key) ?? null,
    status: entity.status,
    raw_status: entity.raw_status,
  };
  return {
    brief: {
      ...core,
      summary: shortText(entity.summary ?? entity.body),
      severity: attribute("severity"),
      scope: attribute("scope"),
    },
    full: { ...entity.attributes, ...core, summary: entity.summary, body: entity.body },
    source: entity.source,
  };
}
