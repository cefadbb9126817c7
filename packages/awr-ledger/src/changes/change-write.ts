import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isLedgerError, LedgerError } from "../errors.js";
import { injectFault } from "../journal/fault-injection.js";
import { indexSources } from "../projection/index-sources.js";
import { fingerprintBytes } from "../sources/fingerprint.js";
import { loadManifest } from "../sources/read-sources.js";
import { type WorkItemEditPlan, writePlannedEdit } from "../sources/yaml-write-back.js";
import { type ChangePhase, type ChangeRecord, updateChange } from "./change-journal.js";
import type { ChangeEnv } from "./change-kind.js";
import { changeSummary } from "./change-outcome.js";

/** The source's current fingerprint, or undefined when it cannot be read. */
export function observedFingerprint(root: string, path: string | null): string | undefined {
  if (path === null) return undefined;
  try {
    return fingerprintBytes(readFileSync(join(root, path)));
  } catch {
    return undefined;
  }
}

/** Where the source stands against a journaled change: its reviewed bytes, the new ones, or neither. */
export function currentSource(root: string, record: ChangeRecord): string {
  const seen = observedFingerprint(root, record.source_path);
  if (seen === undefined) return "unavailable_or_registration_changed";
  if (seen === record.after_fingerprint) return "after";
  if (seen === record.before_fingerprint) return "before";
  return "externally_changed";
}

/**
 * Carries a journaled change from its recorded phase to its end, each phase recorded before
 * the next begins (with the project lock held by the caller): the source is written only when
 * it still holds exactly the reviewed bytes (once it holds the new bytes the write is known to
 * have happened and is never repeated; any other bytes were edited outside and are kept, the
 * change stopped), then the sources are reindexed. `plan` gives the bytes to write, asked only
 * when a write is due. A failure answers the change as pending recovery (or stopped), with this
 * call's facts, as the error's result.
 */
export async function carryOut(
  env: ChangeEnv,
  start: ChangeRecord,
  plan: () => WorkItemEditPlan,
): Promise<Record<string, unknown>> {
  let record = start;
  let wrote = false;
  const at = () => new Date(env.now()).toISOString();
  const step = async (
    phase: ChangePhase,
    extra: { outcome?: Record<string, unknown>; project_revision?: number } = {},
  ) => {
    const next = { phase, at: at(), ...extra };
    record = await env.store.write((tx) => updateChange(tx, record, next));
  };
  try {
    if (record.phase === "prepared") {
      const seen = observedFingerprint(env.root, record.source_path);
      if (seen === record.before_fingerprint) {
        writePlannedEdit(plan());
        wrote = true;
      } else if (seen !== record.after_fingerprint) {
        await step("stopped", {
          outcome: { reason: "source_edited_outside", observed_fingerprint: seen ?? null },
        });
        throw new LedgerError(
          "SourceConflict",
          `${record.source_path} was changed by someone else after this change was reviewed, so AWR kept its bytes and wrote nothing. Read its current text and preview a new change.`,
          { path: record.source_path, observed: seen ?? null },
        );
      }
      await step("source_written");
      injectFault("change_after_source_write");
    }
    if (record.phase === "source_written") {
      const reindex = await indexSources(env.store, env.root, loadManifest(env.root), {
        client: env.client,
      });
      await step("completed", {
        project_revision: reindex.project_revision,
        outcome: {
          reindexed: reindex.reindexed,
          changed_paths: reindex.changed_paths,
          project_revision: reindex.project_revision,
        },
      });
    }
  } catch (error) {
    const answer = {
      ...changeSummary(record, false),
      ok: false,
      source_write_performed: wrote,
      runtime_write_performed: true,
    };
    const failure = isLedgerError(error)
      ? error
      : new LedgerError(
          "MutationConflict",
          `The source change stopped at phase ${record.phase}: ${(error as Error).message}. Ask awr_change_status, then resume it with awr_change_recover.`,
        );
    throw new LedgerError(failure.code, failure.message, failure.details, {
      cause: error,
      result: answer,
    });
  }
  return {
    ...changeSummary(record, false),
    source_write_performed: wrote,
    runtime_write_performed: true,
  };
}
