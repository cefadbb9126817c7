import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type { CallOptions, RuntimeCaller, RuntimeContext } from "../core/runtime-context.js";
import { LedgerError } from "../errors.js";
import { ulid } from "../internal/ulid.js";
import type { WriteReceipt } from "../journal/run-write.js";
import type { EvidenceTable } from "../storage/schema.js";
import { runCheckedWrite } from "./checked-write.js";
import { EVIDENCE_LEVELS, type EvidenceLevel } from "./evidence-levels.js";
import { asFields, choice, optText, optTextList, text } from "./input/fields.js";
import {
  readSessionRef,
  readWriteFields,
  SESSION_REF_FIELDS,
  WRITE_FIELDS,
} from "./input/write-fields.js";
import { resolveLinks } from "./runtime-lookup.js";

export interface EvidenceRecordInput {
  external_key: string;
  evidence_type: string;
  level: EvidenceLevel;
  summary: string;
  work?: string;
  locator?: string;
  scope?: string[];
  sha256?: string;
  command?: string;
  verified_at?: string;
  session?: string;
  conversation?: string;
  expected_revision: number;
  request_id?: string;
}

export interface EvidenceView {
  external_key: string;
  evidence_type: string;
  level: string;
  summary: string;
  locator: string | null;
  scope: string[];
  sha256: string | null;
  command: string | null;
  verified_at: string | null;
  work: string | null;
  session: string | null;
  revision: number;
  recorded_at: string;
}

export interface EvidenceRecordResult {
  evidence: EvidenceView;
  /** True when an earlier record under the same external_key was replaced. */
  replaced: boolean;
}

export function evidenceView(row: EvidenceTable): EvidenceView {
  return {
    external_key: row.external_key,
    evidence_type: row.evidence_type,
    level: row.level,
    summary: row.summary,
    locator: row.locator,
    scope: JSON.parse(row.scope) as string[],
    sha256: row.sha256,
    command: row.command,
    verified_at: row.verified_at,
    work: row.work,
    session: row.session,
    revision: Number(row.revision),
    recorded_at: row.recorded_at,
  };
}

const SHA256 = /^[0-9a-fA-F]{64}$/;
const LEVELS = [...EVIDENCE_LEVELS, "unknown"] as const;

/**
 * awr_evidence_record: records (or, under an existing external_key, replaces) one piece of
 * evidence. `command` is recorded, never executed.
 */
export async function evidenceRecord(
  ctx: RuntimeContext,
  input: EvidenceRecordInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<EvidenceRecordResult & WriteReceipt> {
  const fields = asFields(input, [
    "external_key",
    "evidence_type",
    "level",
    "summary",
    "work",
    "locator",
    "scope",
    "sha256",
    "command",
    "verified_at",
    ...SESSION_REF_FIELDS,
    ...WRITE_FIELDS,
  ]);
  const write = readWriteFields(fields);
  const externalKey = text(fields, "external_key", { max: 256 });
  const evidenceType = text(fields, "evidence_type", { max: 128 });
  const level = choice(fields, "level", LEVELS);
  const summary = text(fields, "summary", { max: 65_536 });
  const workRef = optText(fields, "work", { max: 256 });
  const locator = optText(fields, "locator", { max: 4096 });
  const scope = optTextList(fields, "scope", { maxItems: 100, maxLength: 1024 }) ?? [];
  const sha256 = optText(fields, "sha256", { max: 64 });
  if (sha256 !== undefined && !SHA256.test(sha256)) {
    throw new LedgerError("InvalidInput", "sha256 must be 64 hexadecimal digits", {
      field: "sha256",
    });
  }
  const command = optText(fields, "command", { max: 65_536 });
  const verifiedAt = optText(fields, "verified_at", { max: 64 });
  if (verifiedAt !== undefined && Number.isNaN(Date.parse(verifiedAt))) {
    throw new LedgerError("InvalidInput", "verified_at must be an ISO-8601 date-time", {
      field: "verified_at",
    });
  }
  const ref = readSessionRef(fields);

  return runCheckedWrite(
    ctx,
    {
      tool: "awr_evidence_record",
      input: fields,
      write,
      caller,
      check: (db) => resolveLinks(db, caller, workRef, ref),
      apply: async (unit, linked) => {
        const existing = await unit.tx
          .selectFrom("evidence")
          .select("id")
          .where("external_key", "=", externalKey)
          .executeTakeFirst();
        const row: EvidenceTable = {
          id: existing?.id ?? ulid(),
          external_key: externalKey,
          evidence_type: evidenceType,
          level,
          summary,
          locator: locator ?? null,
          scope: JSON.stringify(scope),
          sha256: sha256?.toLowerCase() ?? null,
          command: command ?? null,
          verified_at: verifiedAt ?? null,
          work: linked.work,
          session: linked.session,
          client: caller.client,
          revision: unit.revision,
          recorded_at: unit.time,
        };
        if (existing === undefined) {
          await unit.tx.insertInto("evidence").values(row).execute();
        } else {
          const { id: _id, ...changes } = row;
          await unit.tx
            .updateTable("evidence")
            .set(changes)
            .where("id", "=", existing.id)
            .execute();
        }
        return {
          result: { evidence: evidenceView(row), replaced: existing !== undefined },
          event: {
            type: DOMAIN_EVENT_TYPES.evidenceRecorded,
            work: linked.work,
            session: linked.session,
            summary: `${externalKey} (${level}): ${summary.slice(0, 160)}`,
            payload: { external_key: externalKey, level, evidence_type: evidenceType },
          },
        };
      },
    },
    options,
  );
}
