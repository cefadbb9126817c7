import type { Kysely } from "kysely";
import type { SourceIssue } from "../sources/adapters/index.js";
import { MISSING_FINGERPRINT } from "../sources/fingerprint.js";
import type { LedgerSchema } from "../storage/schema.js";

/**
 * What status and ready report about the sources behind their answer: every manifest source
 * whose file (or directory) did not exist at the last index, as a warning naming it and the fix.
 * Such a source contributes nothing while it is gone (its entities are out of the projection;
 * the runtime state recorded against its work, claims and evidence, stays and is back when the
 * file is), so an answer without it must say so rather than read as complete: "no open work"
 * with the work ledger missing is not "all work is done". One SELECT on the sources table (one
 * row per file), not kept with the projection: a source going missing with no entities does not
 * move the projection's clock.
 */
export async function missingSourceIssues(db: Kysely<LedgerSchema>): Promise<SourceIssue[]> {
  const rows = await db
    .selectFrom("sources")
    .select(["path", "kind"])
    .where("fingerprint", "=", MISSING_FINGERPRINT)
    .orderBy("path")
    .execute();
  return rows.map((row) => ({
    path: row.path,
    line: null,
    severity: "warning",
    message:
      `source ${row.kind === "directory" ? "directory" : "file"} ${row.path} does not exist, so ` +
      "nothing it holds (work items, goals, rules) is counted; restore it (check out the branch " +
      "that has it) or fix its path in .awr/project.toml, then read again",
  }));
}

/** The next action when sources are missing and no work item gives one. */
export function missingSourcesAction(issues: readonly SourceIssue[]): string {
  const paths = issues.map((i) => i.path).join(", ");
  return `Restore ${paths} or fix its path in .awr/project.toml: ${issues.length === 1 ? "it does" : "they do"} not exist, so the work ${issues.length === 1 ? "it holds is" : "they hold is"} not counted here.`;
}
