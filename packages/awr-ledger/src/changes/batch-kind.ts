import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { LIMITS } from "../core/limits.js";
import { LedgerError } from "../errors.js";
import { yamlModule } from "../internal/lazy-dependencies.js";
import type { LedgerTextEdit, LedgerValue } from "../sources/ledger-text-edit.js";
import { decodeSource } from "../sources/text-bytes.js";
import { ledgerSourceMapping, planLedgerTextEdit } from "../sources/yaml-write-back.js";
import type { SourceTable } from "../storage/schema.js";
import { checkCandidateGraph, refuseOccupied } from "./candidate-graph.js";
import { onlyMembers, record, requiredText } from "./change-fields.js";
import type { ChangeRecord } from "./change-journal.js";
import type { ChangeEnv, PlannedChange, PreviewFacts, SourceChangeKind } from "./change-kind.js";
import { EDIT_WRITABLE_FIELDS } from "./host-edit-kind.js";
import { plannedTexts, reviewedPlanHead } from "./reviewed-plan.js";
import { detailsOf, whereRecorded, withoutDetails } from "./whole-file.js";

const WHAT = "A batch change";
const DUPLICATE = ["fail", "skip_exact"] as const;

/** One operation of a ledger batch, as normalized. */
type BatchOperation =
  | { operation: "fields"; target: string; fields: Record<string, LedgerValue> }
  | {
      operation: "import";
      external_key: string;
      title: string;
      fields: Record<string, LedgerValue>;
      duplicate: (typeof DUPLICATE)[number];
    }
  | { operation: "archive"; target: string; archived: boolean };

/** What became of one operation: it changed its item, found it already so, or was skipped. */
interface OperationOutcome {
  operation: BatchOperation["operation"];
  external_key: string;
  outcome: "changed" | "unchanged" | "skipped";
  fields: string[];
}

function keyOf(op: BatchOperation): string {
  return op.operation === "import" ? op.external_key : op.target;
}

function checkedFields(value: unknown, where: string, allowTitle: boolean) {
  const fields = record(value ?? {});
  if (fields === undefined) {
    throw new LedgerError("InvalidInput", `${WHAT}: fields of ${where} must be an object.`, {
      work: where,
    });
  }
  const allowed = (EDIT_WRITABLE_FIELDS as readonly string[]).filter(
    (f) => allowTitle || f !== "title",
  );
  const closed = Object.keys(fields).filter((f) => !allowed.includes(f));
  if (closed.length > 0) {
    throw new LedgerError(
      "Unsupported",
      `${closed.join(", ")} of ${where} cannot be set by a batch: work state, ownership, evidence and verification change only through their work actions (a new item starts as a draft). Fields a batch sets: ${allowed.join(", ")}. Nothing was read or written.`,
      { work: where, fields: closed },
    );
  }
  return fields as Record<string, LedgerValue>;
}

function operationOf(value: unknown, index: number): BatchOperation {
  const op = record(value);
  const at = `operations[${index}]`;
  if (op === undefined) {
    throw new LedgerError("InvalidInput", `${WHAT}: ${at} must be an object.`, { index });
  }
  switch (op["operation"]) {
    case "fields": {
      onlyMembers(op, ["operation", "target", "fields"], `${WHAT}'s ${at}`);
      const target = requiredText(op, "target", `${WHAT}'s ${at}`);
      const fields = checkedFields(op["fields"], target, true);
      if (Object.keys(fields).length === 0) {
        throw new LedgerError("InvalidInput", `${WHAT}: ${at} sets no field of ${target}.`, {
          index,
        });
      }
      return { operation: "fields", target, fields };
    }
    case "import": {
      onlyMembers(
        op,
        ["operation", "external_key", "title", "fields", "duplicate"],
        `${WHAT}'s ${at}`,
      );
      const external_key = requiredText(op, "external_key", `${WHAT}'s ${at}`);
      const title = op["title"];
      if (typeof title !== "string" || title.trim() === "") {
        throw new LedgerError(
          "InvalidInput",
          `${WHAT}: the import of ${external_key} needs a title.`,
          {
            index,
          },
        );
      }
      const duplicate = op["duplicate"] ?? "fail";
      if (!(DUPLICATE as readonly unknown[]).includes(duplicate)) {
        throw new LedgerError(
          "InvalidInput",
          `${WHAT}: duplicate of ${external_key} is "fail" (refuse a key already used) or "skip_exact" (skip an identical existing item).`,
          { index },
        );
      }
      return {
        operation: "import",
        external_key,
        title,
        fields: checkedFields(op["fields"], external_key, false),
        duplicate: duplicate as (typeof DUPLICATE)[number],
      };
    }
    case "archive": {
      onlyMembers(op, ["operation", "target", "archived"], `${WHAT}'s ${at}`);
      const target = requiredText(op, "target", `${WHAT}'s ${at}`);
      if (typeof op["archived"] !== "boolean") {
        throw new LedgerError(
          "InvalidInput",
          `${WHAT}: archived of ${target} must be true (archive) or false (restore).`,
          { index },
        );
      }
      return { operation: "archive", target, archived: op["archived"] };
    }
    default:
      throw new LedgerError(
        "InvalidInput",
        `${WHAT}: ${at}.operation is fields, import or archive. Nothing was read or written.`,
        { index },
      );
  }
}

function normalize(change: Readonly<Record<string, unknown>>): Record<string, unknown> {
  onlyMembers(change, ["kind", "change"], WHAT);
  const inner = record(change["change"]);
  if (inner === undefined) {
    throw new LedgerError("InvalidInput", `${WHAT} needs change: {kind: "ledger", ...}.`);
  }
  if (inner["kind"] === "related") {
    throw new LedgerError(
      "Unsupported",
      'A related batch (documents, decision adoption, a ledger with its related documents) is not implemented in this version of AWR: it needs the document editor and the adoption writer. Nothing was read or written. Change one work ledger with change.kind "ledger", and edit the documents in their files and reindex.',
      { change_kind: "batch", batch_kind: "related", implemented: false },
    );
  }
  if (inner["kind"] !== "ledger") {
    throw new LedgerError(
      "InvalidInput",
      `${WHAT}'s change.kind is "ledger" (or "related"). Nothing was read or written.`,
      { batch_kind: inner["kind"] ?? null },
    );
  }
  onlyMembers(inner, ["kind", "source_id", "source_fingerprint", "operations"], WHAT);
  const source_id = requiredText(inner, "source_id", WHAT);
  const source_fingerprint = requiredText(inner, "source_fingerprint", WHAT);
  const list = inner["operations"];
  if (!Array.isArray(list) || list.length === 0 || list.length > LIMITS.changeBatchTargets) {
    throw new LedgerError(
      "InvalidInput",
      `${WHAT} needs operations: 1..${LIMITS.changeBatchTargets} of fields, import or archive. Nothing was read or written.`,
      { operations: Array.isArray(list) ? list.length : null },
    );
  }
  const operations = list.map(operationOf);
  const seen = new Set<string>();
  for (const op of operations) {
    const key = keyOf(op);
    if (seen.has(key)) {
      throw new LedgerError(
        "InvalidInput",
        `${WHAT} names ${key} twice; give each task one operation (combine its fields). Nothing was read or written.`,
        { work: key },
      );
    }
    seen.add(key);
  }
  return {
    kind: "batch",
    change: { kind: "ledger", source_id, source_fingerprint, operations },
  };
}

/** The work ledger a batch changes: a registered yaml-ledger-v1 source, by its id (path). */
async function ledgerSource(env: ChangeEnv, id: string): Promise<SourceTable> {
  const all = await env.store.read((db) => db.selectFrom("sources").selectAll().execute());
  const source = all.find((s) => s.path === id);
  if (source === undefined) {
    throw new LedgerError(
      "NotFound",
      `${id} is no registered source of this project; source_id is one of ${all.map((s) => s.path).join(", ")}. Nothing was written.`,
      { source_id: id, source_ids: all.map((s) => s.path) },
    );
  }
  if (
    source.adapter !== "yaml-ledger-v1" ||
    !(source.domain === "ledger" || source.domain === "work")
  ) {
    throw new LedgerError(
      "Unsupported",
      `${id} is a ${source.domain} source read by ${source.adapter}; a batch changes a yaml-ledger-v1 work ledger only. Edit it by hand and reindex.`,
      { source_id: id, adapter: source.adapter },
    );
  }
  return source;
}

/** The ledger's work records by key, with canonical field names (read from its current text). */
function ledgerRecords(env: ChangeEnv, path: string): Map<string, Record<string, unknown>> {
  const mapping = ledgerSourceMapping(env.root, path);
  const text = decodeSource(readFileSync(join(env.root, path))).text.replace(/^\uFEFF/, "");
  const out = new Map<string, Record<string, unknown>>();
  let data: unknown;
  try {
    data = yamlModule().parse(text);
  } catch {
    return out;
  }
  const items = record(data)?.["work_items"];
  const idField = mapping.sourceField("id");
  if (Array.isArray(items)) {
    for (const item of items) {
      const r = record(item);
      const id = r?.[idField] ?? r?.["external_key"];
      if (r !== undefined && id !== undefined && id !== null)
        out.set(String(id), mapping.rename(r));
    }
  } else if (record(items) !== undefined) {
    for (const [key, item] of Object.entries(items as Record<string, unknown>)) {
      const r = record(item);
      if (r !== undefined) out.set(key, mapping.rename(r));
    }
  }
  return out;
}

/** The planning contract: every field but the next-action note. */
function touchesContract(op: BatchOperation): boolean {
  if (op.operation === "archive") return true;
  if (op.operation === "import") return false;
  return Object.keys(op.fields).some((f) => f !== "next_action");
}

function textEdit(op: BatchOperation): LedgerTextEdit {
  if (op.operation === "import") {
    return {
      operation: "import",
      external_key: op.external_key,
      title: op.title,
      fields: op.fields,
    };
  }
  return op;
}

function operationsOf(change: Readonly<Record<string, unknown>>): {
  source_id: string;
  source_fingerprint: string;
  operations: BatchOperation[];
} {
  return change["change"] as never;
}

/** Several tasks of one work ledger changed together, checked as a whole before any write. */
async function plan(env: ChangeEnv, change: Readonly<Record<string, unknown>>) {
  const normalized = normalize(change);
  const { source_id, source_fingerprint, operations } = operationsOf(normalized);
  const source = await ledgerSource(env, source_id);
  if (source.fingerprint !== source_fingerprint) {
    throw new LedgerError(
      "SourceConflict",
      `${source_id} changed since the fingerprint you reviewed; nothing was written. Read it again (reindex first if it changed on disk) and preview a new batch.`,
      { source_id, expected: source_fingerprint, actual: source.fingerprint },
    );
  }
  const imports = operations.filter((op) => op.operation === "import");
  const elsewhere = await env.store.read((db) =>
    imports.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom("entities")
          .select(["key", "source_path"])
          .where("kind", "=", "work")
          .where(
            "key",
            "in",
            imports.map((op) => op.external_key),
          )
          .execute(),
  );
  const foreign = elsewhere.filter((e) => e.source_path !== source.path);
  if (foreign.length > 0) {
    throw new LedgerError(
      "SourceConflict",
      `${foreign.map((e) => `${e.key} (${e.source_path})`).join(", ")}: the import key already belongs to another source of this project; link the existing task instead of creating an ambiguous identity. Nothing was written.`,
      { works: foreign.map((e) => e.key) },
    );
  }
  const existing = ledgerRecords(env, source.path);
  const skipped = new Set<string>();
  for (const op of imports) {
    const current = existing.get(op.external_key);
    if (current === undefined) continue;
    const exact =
      op.duplicate === "skip_exact" &&
      current["title"] === op.title &&
      Object.entries(op.fields).every(([f, v]) => isDeepStrictEqual(current[f] ?? null, v));
    if (!exact) {
      throw new LedgerError(
        "SourceConflict",
        `${op.external_key} is already in ${source.path}${op.duplicate === "skip_exact" ? " with other content" : ""}; edit it with a fields operation, import under another key${op.duplicate === "fail" ? ', or use duplicate "skip_exact" to skip an identical item' : ""}. Nothing was written.`,
        { work: op.external_key, duplicate: op.duplicate },
      );
    }
    skipped.add(op.external_key);
  }
  await refuseOccupied(env, operations.filter(touchesContract).map(keyOf), "this batch");
  const run = operations.filter((op) => !skipped.has(keyOf(op)));
  const edit = planLedgerTextEdit(env.root, source.path, run.map(textEdit), source_fingerprint);
  await checkCandidateGraph(env, source.path, edit.after_text);
  const changed = new Map(edit.edits.map((e) => [e.external_key, e.fields]));
  const outcomes: OperationOutcome[] = operations.map((op) => ({
    operation: op.operation,
    external_key: keyOf(op),
    outcome: skipped.has(keyOf(op)) ? "skipped" : changed.has(keyOf(op)) ? "changed" : "unchanged",
    fields: changed.get(keyOf(op)) ?? [],
  }));
  const planned: PlannedChange = {
    change: normalized,
    work: operations.map(keyOf).join(", "),
    fields: {},
    edit,
    details: { source_id: source.path, outcomes, skipped: [...skipped] },
  };
  return planned;
}

function replan(env: ChangeEnv, journaled: ChangeRecord) {
  const { operations } = operationsOf(journaled.plan.change);
  const skipped = new Set((journaled.plan.details?.["skipped"] ?? []) as string[]);
  return planLedgerTextEdit(
    env.root,
    journaled.source_path ?? "",
    operations.filter((op) => !skipped.has(keyOf(op))).map(textEdit),
    journaled.before_fingerprint ?? "",
  );
}

const PREVIEW_GUIDANCE = {
  when: "Every file under preview.files reads as you meant, and outcomes name each task",
  basis:
    "The reviewed source fingerprint, project revision and whole candidate graph; the ledger is replaced as one file",
  next_action:
    "Call awr_change_apply with the same request_id, reason and change, project_revision as expected_revision and preview.fingerprint as expected_preview",
  recheck:
    "If an outcome is uncertain, ask awr_change_status (kind batch) before any retry; resume a pending one with awr_change_recover",
};

const OUTCOME_GUIDANCE = {
  when: "The batch has an outcome",
  basis: "The durable source-change journal entry of this request",
  next_action:
    "Act on status; a pending_recovery batch is resumed with awr_change_recover (it keeps bytes edited outside), never by a new request",
  recheck: "Ask awr_change_status (kind batch) before any retry",
};

function batchAnswer(answer: Record<string, unknown>): Record<string, unknown> {
  const rest = withoutDetails(answer);
  const details = detailsOf(answer);
  const written = ["source_written", "completed"].includes(String(answer["phase"]));
  const changes = ((answer["changed_fields"] ?? []) as unknown[]).length > 0;
  const applied = written && changes ? [0] : [];
  return {
    ...rest,
    source_id: details["source_id"] ?? whereRecorded(answer).path,
    outcomes: details["outcomes"] ?? [],
    applied_files: applied,
    file_total: 1,
    filesystem_atomic: false,
    partial_apply: applied.length > 0 && answer["status"] === "pending_recovery",
    guidance: OUTCOME_GUIDANCE,
  };
}

/** A reviewed batch of fields, import and archive operations on one work ledger. */
export const batchKind: SourceChangeKind = {
  kind: "batch",
  normalize: (change) => normalize(change),
  plan,
  replan,
  previewAnswer(planned: PlannedChange, facts: PreviewFacts) {
    return {
      status: "preview",
      project_revision: facts.project_revision,
      source_id: planned.edit.path,
      outcomes: planned.details?.["outcomes"],
      preview: {
        fingerprint: facts.preview_fingerprint,
        plan: {
          ...reviewedPlanHead(planned, facts),
          files: [
            {
              path: planned.edit.path,
              before_fingerprint: planned.edit.before_fingerprint,
              after_fingerprint: planned.edit.after_fingerprint,
            },
          ],
          outcomes: planned.details?.["outcomes"],
        },
        files: [
          {
            path: planned.edit.path,
            ...plannedTexts(planned),
          },
        ],
      },
      guidance: PREVIEW_GUIDANCE,
      source_write_performed: false,
    };
  },
  outcomeAnswer: batchAnswer,
  journalAnswer: batchAnswer,
};
