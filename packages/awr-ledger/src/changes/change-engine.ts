import { LedgerError } from "../errors.js";
import { injectFault } from "../journal/fault-injection.js";
import { type EditValue, planWorkItemEdit } from "../sources/yaml-write-back.js";
import { checkExpectedRevision } from "../storage/revision.js";
import { batchKind } from "./batch-kind.js";
import {
  type ChangeIdentity,
  type ChangeKind,
  changeIdentity,
  changeReason,
  digest,
} from "./change-identity.js";
import { type ChangeRecord, findChange, insertChange } from "./change-journal.js";
import type { ChangeEnv, PlannedChange, SourceChangeKind } from "./change-kind.js";
import { changeSummary, identityFields } from "./change-outcome.js";
import { carryOut, currentSource } from "./change-write.js";
import { createKind } from "./create-kind.js";
import { hostEditKind } from "./host-edit-kind.js";
import { workEditKind } from "./work-edit-kind.js";

/** Every change kind, by its name. */
export const SOURCE_CHANGE_KINDS: Readonly<Record<ChangeKind, SourceChangeKind>> = {
  create: createKind,
  batch: batchKind,
  edit: hostEditKind,
  work_edit: workEditKind,
};

export interface ChangePreviewInput {
  request_id: string;
  reason: string;
  change: Record<string, unknown>;
}
export interface ChangeApplyInput extends ChangePreviewInput {
  expected_revision: number;
  expected_preview: string;
}
export interface ChangeStatusInput {
  request_id: string;
  kind: string;
}
export interface ChangeRecoverInput extends ChangeStatusInput {
  expected_revision: number;
}

/** The identity and kind of a request, refused before anything is read. */
function resolve(
  env: ChangeEnv,
  tool: string,
  kind: unknown,
  requestId: unknown,
): { identity: ChangeIdentity; handler: SourceChangeKind } {
  const identity = changeIdentity(env.store.projectId, env.client, kind, requestId);
  const handler = SOURCE_CHANGE_KINDS[identity.kind];
  if (handler.unavailable !== undefined) {
    throw new LedgerError(
      "Unsupported",
      `${tool} with change kind ${identity.kind} is not implemented in this version of AWR: ${handler.unavailable.missing}. Nothing was read or written. ${handler.unavailable.instead}`,
      { tool, change_kind: identity.kind, implemented: false },
    );
  }
  return { identity, handler };
}

function requestHash(identity: ChangeIdentity, reason: string, change: Record<string, unknown>) {
  return digest({ kind: identity.kind, request_id: identity.request_id, reason, change });
}

/** The review fingerprint: what apply must be given back, bound to the exact planned bytes. */
function previewFingerprint(
  identity: ChangeIdentity,
  request_hash: string,
  revision: number,
  planned: PlannedChange,
): string {
  return `sha256:${digest({
    project_id: identity.project_id,
    request_key: identity.request_key,
    request_hash,
    project_revision: revision,
    source_path: planned.edit.path,
    before: planned.edit.before_fingerprint,
    after: planned.edit.after_fingerprint,
    fields: planned.fields,
  })}`;
}

/** awr_change_preview: plans the change on the current sources; writes nothing at all. */
export async function previewChange(
  env: ChangeEnv,
  input: ChangePreviewInput,
): Promise<Record<string, unknown>> {
  const change = input.change ?? {};
  const { identity, handler } = resolve(
    env,
    "awr_change_preview",
    change["kind"],
    input.request_id,
  );
  const reason = changeReason(input.reason);
  const revision = await env.store.currentRevision();
  const planned = await handler.plan(env, change, identity);
  const request_hash = requestHash(identity, reason, planned.change);
  const preview_fingerprint = previewFingerprint(identity, request_hash, revision, planned);
  return {
    ...handler.previewAnswer(planned, {
      project_id: identity.project_id,
      project_revision: revision,
      request_key: identity.request_key,
      request_hash,
      preview_fingerprint,
    }),
    ...identityFields(identity.request_id, identity.kind),
    read_only: true,
    runtime_write_performed: false,
    source_write_performed: false,
  };
}

/**
 * awr_change_apply: the reviewed change, at the revision and with the preview fingerprint of
 * that review. A request already journaled answers its recorded outcome (a pending one with
 * MutationConflict: recover it); a source or revision changed since the review is refused with
 * nothing written. The change is journaled before its source is written.
 */
export async function applyChange(
  env: ChangeEnv,
  input: ChangeApplyInput,
): Promise<Record<string, unknown>> {
  const change = input.change ?? {};
  const { identity, handler } = resolve(env, "awr_change_apply", change["kind"], input.request_id);
  const reason = changeReason(input.reason);
  const normalized = handler.normalize(change, "apply");
  const request_hash = requestHash(identity, reason, normalized);
  return await env.store.withProjectLock(async (held) => {
    const heldEnv: ChangeEnv = { ...env, store: held };
    const existing = await findChange(held.db, identity);
    if (existing !== undefined) return replay(handler, existing, request_hash);
    checkExpectedRevision(input.expected_revision, await held.currentRevision());
    const planned = await handler.plan(heldEnv, normalized, identity);
    const fingerprint = previewFingerprint(
      identity,
      request_hash,
      input.expected_revision,
      planned,
    );
    if (fingerprint !== input.expected_preview) {
      throw new LedgerError(
        "SourceConflict",
        "This change no longer matches the preview you reviewed (the source, the change or its reason differ); nothing was written. Preview it again and review the new text.",
        { expected_preview: input.expected_preview },
      );
    }
    const now = new Date(env.now()).toISOString();
    const record: ChangeRecord = {
      identity,
      request_hash,
      preview_fingerprint: fingerprint,
      phase: planned.edit.changed.length === 0 ? "no_change" : "prepared",
      source_path: planned.edit.path,
      before_fingerprint: planned.edit.before_fingerprint,
      after_fingerprint: planned.edit.after_fingerprint,
      plan: {
        change: planned.change,
        reason,
        work: planned.work,
        fields: planned.fields,
        changed: planned.edit.changed,
        previous: planned.edit.previous,
        ...(planned.details === undefined ? {} : { details: planned.details }),
      },
      outcome: null,
      base_revision: input.expected_revision,
      project_revision: input.expected_revision,
      created_at: now,
      updated_at: now,
    };
    await held.write((tx) => insertChange(tx, record));
    if (record.phase === "no_change") {
      return handler.outcomeAnswer({
        ...changeSummary(record, false),
        runtime_write_performed: true,
      });
    }
    injectFault("change_after_prepare");
    try {
      return handler.outcomeAnswer(await carryOut(heldEnv, record, () => planned.edit));
    } catch (error) {
      if (error instanceof LedgerError && error.result !== undefined) {
        error.result = handler.outcomeAnswer(error.result);
      }
      throw error;
    }
  });
}

/** A status or recovery answer with the kind's additions (edit and work_edit have none). */
function journaledAnswer(
  handler: SourceChangeKind,
  answer: Record<string, unknown>,
): Record<string, unknown> {
  return handler.journalAnswer?.(answer) ?? answer;
}

/** A repeated apply: the recorded outcome, or a refusal when the id names another change. */
function replay(
  handler: SourceChangeKind,
  existing: ChangeRecord,
  request_hash: string,
): Record<string, unknown> {
  if (existing.request_hash !== request_hash) {
    throw new LedgerError(
      "SourceConflict",
      `request_id ${existing.identity.request_id} already names a different ${existing.identity.kind} change of yours (another change or reason); repeat that request exactly, or choose a new request_id. Nothing was written.`,
      { request_id: existing.identity.request_id, change_kind: existing.identity.kind },
    );
  }
  const answer = handler.outcomeAnswer(changeSummary(existing, true));
  if (existing.phase === "stopped") throw stoppedError(existing, answer);
  if (answer["ok"] === false) {
    throw new LedgerError(
      "MutationConflict",
      `This change was journaled but did not finish (phase ${existing.phase}); it is not run again. Ask awr_change_status, then resume it with awr_change_recover.`,
      { request_id: existing.identity.request_id, phase: existing.phase },
      { result: answer },
    );
  }
  return answer;
}

/** A change stopped because its source was edited outside: settled, never written; review anew. */
function stoppedError(record: ChangeRecord, answer: Record<string, unknown>): LedgerError {
  return new LedgerError(
    "SourceConflict",
    `This change stopped without writing: ${record.source_path} was edited outside after the review, and those bytes were kept. Read the source and preview a new change under a new request_id.`,
    { request_id: record.identity.request_id, phase: record.phase, path: record.source_path },
    { result: answer },
  );
}

/** awr_change_status: the journaled change of this client, kind and request_id; reads no projection. */
export async function changeStatus(
  env: ChangeEnv,
  input: ChangeStatusInput,
): Promise<Record<string, unknown>> {
  const { identity, handler } = resolve(env, "awr_change_status", input.kind, input.request_id);
  const record = await env.store.read((db) => findChange(db, identity));
  if (record === undefined) {
    return {
      found: false,
      read_only: true,
      source_write_performed: false,
      runtime_write_performed: false,
      ...identityFields(identity.request_id, identity.kind),
    };
  }
  return journaledAnswer(handler, {
    ...changeSummary(record, true),
    found: true,
    read_only: true,
    current_source: currentSource(env.root, record),
  });
}

/**
 * awr_change_recover: resumes a journaled change from the phase it reached: a source already
 * holding the new bytes is not written again, one edited outside is kept (the change stops),
 * and the reindex is done if it was not. A settled change answers its recorded outcome.
 */
export async function recoverChange(
  env: ChangeEnv,
  input: ChangeRecoverInput,
): Promise<Record<string, unknown>> {
  const { identity, handler } = resolve(env, "awr_change_recover", input.kind, input.request_id);
  return await env.store.withProjectLock(async (held) => {
    const record = await findChange(held.db, identity);
    if (record === undefined) {
      throw new LedgerError(
        "NotFound",
        `You have no ${identity.kind} source change with request_id ${identity.request_id}; nothing was written. Check the kind and request_id (awr_change_status).`,
        { request_id: identity.request_id, change_kind: identity.kind },
      );
    }
    if (record.phase === "stopped") {
      throw stoppedError(record, journaledAnswer(handler, changeSummary(record, true)));
    }
    if (record.phase !== "prepared" && record.phase !== "source_written") {
      return journaledAnswer(handler, changeSummary(record, true));
    }
    checkExpectedRevision(input.expected_revision, await held.currentRevision());
    const replan = () => {
      const plan =
        handler.replan?.(env, record) ??
        planWorkItemEdit(
          env.root,
          record.source_path ?? "",
          record.plan.work,
          record.plan.fields as Record<string, EditValue>,
          record.before_fingerprint ?? "",
        );
      if (plan.after_fingerprint !== record.after_fingerprint) {
        throw new LedgerError(
          "SourceConflict",
          `The recorded change no longer produces the reviewed bytes of ${record.source_path}; nothing was written. Preview a new change.`,
          { path: record.source_path },
        );
      }
      return plan;
    };
    try {
      return journaledAnswer(handler, await carryOut({ ...env, store: held }, record, replan));
    } catch (error) {
      if (error instanceof LedgerError && error.result !== undefined) {
        error.result = journaledAnswer(handler, error.result);
      }
      throw error;
    }
  });
}
