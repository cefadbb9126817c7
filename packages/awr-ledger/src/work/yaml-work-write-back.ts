import type { WorkWriteBack } from "../core/runtime-context.js";
import { LedgerError } from "../errors.js";

/**
 * The production write-back of a work transition: edits status/next_action/blocker of the item
 * in its YAML source in place (writeBackWorkItem, refusing with SourceConflict when the
 * file no longer has the fingerprint recorded at the last index), then records the file's new
 * fingerprint, size and mtime so the ledger's own edit does not make the sources look stale.
 * The file is written before the domain transaction commits; if the commit then fails, the next
 * read reports the source stale and a reindex brings the projection in line with the file.
 */
export function createYamlWriteBack(root: string): WorkWriteBack {
  return async (tx, work, changes) => {
    const source = await tx
      .selectFrom("sources")
      .select(["fingerprint"])
      .where("path", "=", work.source_path)
      .executeTakeFirst();
    if (source === undefined) {
      throw new LedgerError(
        "SourceConflict",
        `${work.source_path} is no longer an indexed source of ${work.key}; reindex and retry`,
        { path: work.source_path, work: work.key },
      );
    }
    // The YAML editor loads on the first transition, not with the ledger (most runs never write).
    const { writeBackWorkItem } = await import("../sources/yaml-write-back.js");
    const written = writeBackWorkItem(
      root,
      work.source_path,
      work.key,
      changes,
      source.fingerprint,
    );
    await tx
      .updateTable("sources")
      .set({ fingerprint: written.fingerprint, size: written.size, mtime_ms: written.mtime_ms })
      .where("path", "=", work.source_path)
      .execute();
  };
}
