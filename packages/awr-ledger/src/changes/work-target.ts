import { LedgerError } from "../errors.js";
import type { EntityTable, SourceTable } from "../storage/schema.js";
import type { ChangeEnv } from "./change-kind.js";

/** A work item as last indexed, with the source it comes from. */
export interface WorkTarget {
  entity: EntityTable;
  source: SourceTable;
  attributes: Record<string, unknown>;
}

/**
 * The indexed work item `key` and its source, refused with NotFound when there is none and with
 * Unsupported when its source is not a yaml-ledger-v1 ledger (the only kind AWR writes).
 */
export async function workTarget(env: ChangeEnv, key: string): Promise<WorkTarget> {
  const found = await env.store.read(async (db) => {
    const entity = await db
      .selectFrom("entities")
      .selectAll()
      .where("kind", "=", "work")
      .where("key", "=", key)
      .executeTakeFirst();
    if (entity === undefined) return undefined;
    const source = await db
      .selectFrom("sources")
      .selectAll()
      .where("path", "=", entity.source_path)
      .executeTakeFirst();
    return source === undefined ? undefined : { entity, source };
  });
  if (found === undefined) {
    throw new LedgerError(
      "NotFound",
      `Work item ${key} is not in the indexed sources; check the key (awr_work_list), or reindex if it was just added.`,
      { work: key },
    );
  }
  if (found.source.adapter !== "yaml-ledger-v1") {
    throw new LedgerError(
      "Unsupported",
      `${found.source.path} is a ${found.source.adapter} source, which AWR does not edit; edit ${key} there by hand and reindex.`,
      { work: key, path: found.source.path, adapter: found.source.adapter },
    );
  }
  return {
    ...found,
    attributes: JSON.parse(found.entity.attributes || "{}") as Record<string, unknown>,
  };
}

/** Refuses (SourceConflict) a reviewed fingerprint that is not the source's indexed one. */
export function checkSourceFingerprint(target: WorkTarget, reviewed: string): void {
  if (reviewed === target.source.fingerprint) return;
  throw new LedgerError(
    "SourceConflict",
    `${target.source.path} changed since the fingerprint you reviewed; nothing was written. Preview the change again (reindex first if the source changed on disk).`,
    { path: target.source.path, expected: reviewed, actual: target.source.fingerprint },
  );
}
