import { LIMITS } from "../core/limits.js";
import { LedgerError } from "../errors.js";
import type { LedgerValue } from "../sources/ledger-text-edit.js";
import { planLedgerTextEdit } from "../sources/yaml-write-back.js";
import type { SourceTable } from "../storage/schema.js";
import { checkCandidateGraph } from "./candidate-graph.js";
import { onlyMembers, record } from "./change-fields.js";
import { digest } from "./change-identity.js";
import type { ChangeRecord } from "./change-journal.js";
import type { ChangeEnv, PlannedChange, PreviewFacts, SourceChangeKind } from "./change-kind.js";
import { plannedTexts, reviewedPlanHead, reviewedSource } from "./reviewed-plan.js";
import { whereRecorded, withoutDetails } from "./whole-file.js";

/** The source facts a new draft may be given; never its status, identity, owner's claim or evidence. */
export const CREATE_FIELDS = [
  "summary",
  "goal",
  "acceptance",
  "next_action",
  "kind",
  "paths",
  "tags",
  "priority",
  "depends_on",
  "owner",
  "milestone",
] as const;

const WHAT = "A create change";
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters a title may not hold
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function normalize(change: Readonly<Record<string, unknown>>): Record<string, unknown> {
  onlyMembers(change, ["kind", "title", "source_id", "fields"], WHAT);
  const title = change["title"];
  if (
    typeof title !== "string" ||
    title.trim() === "" ||
    Buffer.byteLength(title) > LIMITS.ledgerEdit.titleBytes ||
    CONTROL.test(title)
  ) {
    throw new LedgerError(
      "InvalidInput",
      `${WHAT} needs title: 1..${LIMITS.ledgerEdit.titleBytes} bytes without control characters. Nothing was read or written.`,
      { field: "title" },
    );
  }
  const sourceId = change["source_id"] ?? null;
  if (
    sourceId !== null &&
    (typeof sourceId !== "string" || sourceId === "" || Buffer.byteLength(sourceId) > 256)
  ) {
    throw new LedgerError(
      "InvalidInput",
      `${WHAT}: source_id must be a registered source's id (its path) or null. Nothing was read or written.`,
      { field: "source_id" },
    );
  }
  const given = change["fields"] ?? {};
  const fields = record(given);
  if (fields === undefined) {
    throw new LedgerError("InvalidInput", `${WHAT}: fields must be an object of source facts.`, {
      field: "fields",
    });
  }
  const other = Object.keys(fields).filter(
    (name) => !(CREATE_FIELDS as readonly string[]).includes(name),
  );
  if (
    other.length > 0 ||
    Buffer.byteLength(JSON.stringify(fields)) > LIMITS.ledgerEdit.fieldsBytes
  ) {
    throw new LedgerError(
      "InvalidInput",
      `${WHAT}: fields must be bounded source facts (at most ${LIMITS.ledgerEdit.fieldsBytes} bytes as JSON): ${CREATE_FIELDS.join(", ")}; the status stays draft${other.length > 0 ? `. Remove ${other.join(", ")}` : ""}. Nothing was read or written.`,
      { fields: other, allowed: CREATE_FIELDS },
    );
  }
  return { kind: "create", title, source_id: sourceId, fields };
}

/** The work ledgers of the project AWR writes. */
async function ledgers(env: ChangeEnv): Promise<SourceTable[]> {
  const all = await env.store.read((db) => db.selectFrom("sources").selectAll().execute());
  return all.filter((s) => s.domain === "ledger" || s.domain === "work");
}

/** The ledger the draft goes into: the named one, or the one primary work ledger. */
async function chooseSource(env: ChangeEnv, sourceId: string | null): Promise<SourceTable> {
  const all = await ledgers(env);
  const ids = all.map((s) => s.path);
  const candidates =
    sourceId === null
      ? all.filter((s) => s.role === "primary")
      : all.filter((s) => s.path === sourceId);
  const chosen = candidates[0];
  if (candidates.length !== 1 || chosen === undefined) {
    throw new LedgerError(
      "InvalidInput",
      sourceId === null
        ? `Choose the work ledger for the draft: give source_id, one of ${ids.join(", ") || "(none registered)"}; ${candidates.length === 0 ? "no work ledger is registered as primary" : `${candidates.length} work ledgers are primary`}. Nothing was read or written.`
        : `${sourceId} is no registered work ledger of this project; give source_id as one of ${ids.join(", ") || "(none registered)"}. Nothing was read or written.`,
      { source_id: sourceId, source_ids: ids },
    );
  }
  if (chosen.adapter !== "yaml-ledger-v1") {
    throw new LedgerError(
      "Unsupported",
      `${chosen.path} is a ${chosen.adapter} source, which AWR does not write; add the draft there by hand and reindex, or give source_id of a yaml-ledger-v1 ledger.`,
      { source_id: chosen.path, adapter: chosen.adapter },
    );
  }
  return chosen;
}

/**
 * The stable key of the created work: WORK- and 32 hex digits of the request's identity, so a
 * replay, a retry and a recovery name the same item, and two projects or clients never collide.
 */
export function createdKey(requestKey: string): string {
  return `WORK-${digest(["work-create", requestKey]).slice(0, 32)}`;
}

const PREVIEW_GUIDANCE = {
  when: "The new draft shown under preview.new_record is the one you meant",
  basis:
    "The reviewed ledger fingerprint and project revision; the new item is appended and every other byte is kept",
  next_action:
    "Call awr_change_apply with the same request_id, reason and change, project_revision as expected_revision and preview.fingerprint as expected_preview",
  recheck:
    "If an outcome is uncertain, ask awr_change_status (kind create) before any retry; never create it again under a new request_id",
};

const OUTCOME_GUIDANCE = {
  when: "The draft has an outcome",
  basis: "The durable source-change journal entry of this request",
  next_action:
    "The work stays a draft: refine it with kind edit (goal, acceptance) and activate it with operation activate_draft; a pending_recovery change is resumed with awr_change_recover",
  recheck: "Ask awr_change_status (kind create) before any retry",
};

function created(answer: Record<string, unknown>): Record<string, unknown> {
  const rest = withoutDetails(answer);
  const where = whereRecorded(answer);
  return {
    ...rest,
    external_key: where.work,
    source_id: where.path,
    draft: true,
    completion_claimed: false,
    guidance: OUTCOME_GUIDANCE,
  };
}

/** A new draft work item appended to a work ledger. */
export const createKind: SourceChangeKind = {
  kind: "create",
  normalize: (change) => normalize(change),
  async plan(env, change, identity): Promise<PlannedChange> {
    const normalized = normalize(change);
    const source = await chooseSource(env, normalized["source_id"] as string | null);
    const external_key = createdKey(identity.request_key);
    const taken = await env.store.read((db) =>
      db
        .selectFrom("entities")
        .select("source_path")
        .where("kind", "=", "work")
        .where("key", "=", external_key)
        .executeTakeFirst(),
    );
    if (taken !== undefined) {
      throw new LedgerError(
        "SourceConflict",
        `The key ${external_key} of this request already names work in ${taken.source_path}; inspect that source instead of creating it again. Nothing was written.`,
        { external_key, path: taken.source_path },
      );
    }
    const fields = normalized["fields"] as Record<string, LedgerValue>;
    const edit = planLedgerTextEdit(
      env.root,
      source.path,
      [{ operation: "import", external_key, title: normalized["title"] as string, fields }],
      source.fingerprint,
    );
    await checkCandidateGraph(env, source.path, edit.after_text);
    return {
      change: normalized,
      work: external_key,
      fields: { title: normalized["title"] as string, ...fields },
      edit,
      details: {
        new_record: { external_key, title: normalized["title"], status: "draft", ...fields },
      },
    };
  },
  replan: (env: ChangeEnv, journaled: ChangeRecord) => {
    const change = journaled.plan.change;
    const fields = (change["fields"] ?? {}) as Record<string, LedgerValue>;
    return planLedgerTextEdit(
      env.root,
      journaled.source_path ?? "",
      [
        {
          operation: "import",
          external_key: journaled.plan.work,
          title: change["title"] as string,
          fields,
        },
      ],
      journaled.before_fingerprint ?? "",
    );
  },
  previewAnswer(planned: PlannedChange, facts: PreviewFacts) {
    return {
      status: "preview",
      project_revision: facts.project_revision,
      external_key: planned.work,
      source_id: planned.edit.path,
      draft: true,
      completion_claimed: false,
      preview: {
        fingerprint: facts.preview_fingerprint,
        plan: {
          ...reviewedPlanHead(planned, facts),
          source: reviewedSource(planned),
          external_key: planned.work,
          before_fingerprint: planned.edit.before_fingerprint,
          after_fingerprint: planned.edit.after_fingerprint,
        },
        ...plannedTexts(planned),
        new_record: planned.details?.["new_record"],
      },
      guidance: PREVIEW_GUIDANCE,
      source_write_performed: false,
    };
  },
  outcomeAnswer: created,
  journalAnswer: created,
};
