import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type {
  CallOptions,
  RuntimeCaller,
  RuntimeContext,
  WriteFields,
} from "../core/runtime-context.js";
import { LedgerError } from "../errors.js";
import { ulid } from "../internal/ulid.js";
import type { WriteReceipt } from "../journal/run-write.js";
import { runCheckedWrite } from "../runtime/checked-write.js";
import { resolveLinks } from "../runtime/runtime-lookup.js";
import type { EvidenceTable } from "../storage/schema.js";
import type { EvidenceLevel } from "./evidence-levels.js";
import { type EvidenceView, evidenceView } from "./evidence-view.js";

export interface EvidenceRecordInput extends WriteFields {
  external_key: string;
  evidence_type: string;
  level: EvidenceLevel;
  summary: string;
  locator: string;
  scope: string[];
  work?: string | undefined;
  sha256?: string | undefined;
  source_sha?: string | undefined;
  command?: string | undefined;
  /** Milliseconds since the epoch. */
  verified_at?: number | undefined;
  /** Omitted or null: the selected default; else a branch name or id, or "main". */
  branch?: string | null | undefined;
}

export interface EvidenceRecordResult {
  evidence: EvidenceView;
  /** The `evidence.recorded` event that is this record's receipt. */
  event_id: string;
  /** The bindings are the caller's assertions: nothing was run or verified by the ledger. */
  validation_basis: "caller_supplied_bindings";
}

const SHA256 = /^[0-9a-fA-F]{64}$/;

/**
 * awr_evidence_record: records one piece of evidence under a new external_key (a key already
 * recorded is SourceConflict: evidence is never silently replaced). `command` is recorded,
 * never executed.
 */
export async function evidenceRecord(
  ctx: RuntimeContext,
  input: EvidenceRecordInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<EvidenceRecordResult & WriteReceipt> {
  if (input.sha256 !== undefined && !SHA256.test(input.sha256)) {
    throw new LedgerError("InvalidInput", "sha256 must be 64 hexadecimal digits", {
      field: "sha256",
    });
  }
  return runCheckedWrite(
    ctx,
    {
      input,
      caller,
      check: async (db) => {
        const linked = await resolveLinks(db, caller, input.work, {}, input.branch);
        const existing = await db
          .selectFrom("evidence")
          .select(["id", "revision"])
          .where("external_key", "=", input.external_key)
          .executeTakeFirst();
        if (existing !== undefined) {
          throw new LedgerError(
            "SourceConflict",
            `evidence ${input.external_key} is already recorded (revision ${Number(existing.revision)}); evidence is never replaced: record the new one under another external_key`,
            { external_key: input.external_key, evidence_id: existing.id },
          );
        }
        return linked;
      },
      apply: async (unit, linked) => {
        const row: EvidenceTable = {
          id: ulid(),
          branch: linked.branch,
          external_key: input.external_key,
          evidence_type: input.evidence_type,
          level: input.level,
          summary: input.summary,
          locator: input.locator,
          scope: JSON.stringify(input.scope),
          sha256: input.sha256?.toLowerCase() ?? null,
          source_sha: input.source_sha ?? null,
          command: input.command ?? null,
          verified_at:
            input.verified_at === undefined ? null : new Date(input.verified_at).toISOString(),
          work: linked.work,
          session: linked.session,
          client: caller.client,
          revision: unit.revision,
          recorded_at: unit.time,
        };
        await unit.tx.insertInto("evidence").values(row).execute();
        const eventId = ulid();
        return {
          result: {
            evidence: evidenceView(row),
            event_id: eventId,
            validation_basis: "caller_supplied_bindings",
          },
          event: {
            id: eventId,
            type: DOMAIN_EVENT_TYPES.evidenceRecorded,
            work: linked.work,
            session: linked.session,
            branch: linked.branch,
            summary: `${input.external_key} (${input.level}): ${input.summary.slice(0, 160)}`,
            payload: {
              evidence_id: row.id,
              external_key: input.external_key,
              level: input.level,
              evidence_type: input.evidence_type,
            },
          },
        };
      },
    },
    options,
  );
}
