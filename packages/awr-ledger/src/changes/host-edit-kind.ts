import { LIMITS } from "../core/limits.js";
import { LedgerError } from "../errors.js";
import type { LedgerValue } from "../sources/ledger-text-edit.js";
import {
  EDITABLE_SCALAR_FIELDS,
  EDITABLE_TEXT_FIELDS,
  type EditValue,
  planLedgerTextEdit,
  planWorkItemEdit,
} from "../sources/yaml-write-back.js";
import { checkCandidateGraph, refuseOccupied } from "./candidate-graph.js";
import { onlyMembers, record, requiredText, textFields } from "./change-fields.js";
import type { ChangeRecord } from "./change-journal.js";
import type { ChangeEnv, PlannedChange, PreviewFacts, SourceChangeKind } from "./change-kind.js";
import { fieldsBefore, plannedTexts, reviewedPlanHead, reviewedSource } from "./reviewed-plan.js";
import { checkSourceFingerprint, type WorkTarget, workTarget } from "./work-target.js";

/** The planning fields of a work item an edit may set (never lifecycle, ownership or evidence). */
export const EDIT_WRITABLE_FIELDS = [
  "title",
  "kind",
  "priority",
  "required",
  "required_for_v1",
  "summary",
  "next_action",
  "score",
  "tags",
  "paths",
  "deliverables",
  "acceptance",
  "milestone",
  "depends_on",
  "dependencies",
  "goal",
  "goals",
] as const;

/** The planning fields that hold a list of texts, replaced whole by the ledger editor. */
export const EDIT_LIST_FIELDS = [
  "tags",
  "paths",
  "deliverables",
  "acceptance",
  "depends_on",
  "dependencies",
  "goals",
] as const;

const WHAT = "An edit change";

function isList(name: string, value: unknown): value is string[] {
  return (EDIT_LIST_FIELDS as readonly string[]).includes(name) && Array.isArray(value);
}

/** A list value of an edit, checked: at most LIMITS.listItems single-line texts. */
function listValue(name: string, value: string[]): string[] {
  const bad =
    value.length > LIMITS.listItems ||
    value.some(
      (item) =>
        typeof item !== "string" ||
        item.trim() === "" ||
        Buffer.byteLength(item) > LIMITS.itemBytes ||
        /\p{Cc}/u.test(item),
    );
  if (bad) {
    throw new LedgerError(
      "InvalidInput",
      `${WHAT}: ${name} must be a list of at most ${LIMITS.listItems} non-empty single-line texts of at most ${LIMITS.itemBytes} bytes each. Nothing was read or written.`,
      { field: name },
    );
  }
  return [...value];
}

/** Whether a recorded edit has a list value (planned by the ledger editor, not in place). */
function hasList(fields: Readonly<Record<string, unknown>>): boolean {
  return Object.values(fields).some((v) => Array.isArray(v));
}

function fieldsChange(inner: Record<string, unknown>): Record<string, unknown> {
  onlyMembers(inner, ["operation", "kind", "target", "source_fingerprint", "fields"], WHAT);
  if (inner["kind"] !== "work_item") {
    throw new LedgerError(
      "Unsupported",
      "Edits through these tools set the fields of a work item only (kind work_item); edit goals, plans and other records in their source by hand and reindex. Nothing was read or written.",
      { kind: inner["kind"] ?? null },
    );
  }
  const target = requiredText(inner, "target", WHAT);
  const source_fingerprint = requiredText(inner, "source_fingerprint", WHAT);
  const fields = record(inner["fields"]);
  if (fields === undefined) {
    throw new LedgerError("InvalidInput", `${WHAT} needs fields: an object of the fields to set.`);
  }
  const count = Object.keys(fields).length;
  if (count === 0 || count > LIMITS.changeFields) {
    throw new LedgerError(
      "InvalidInput",
      `${WHAT} needs 1..${LIMITS.changeFields} fields to set. Nothing was read or written.`,
    );
  }
  const closed = Object.keys(fields).filter(
    (f) => !(EDIT_WRITABLE_FIELDS as readonly string[]).includes(f),
  );
  if (closed.length > 0) {
    throw new LedgerError(
      "Unsupported",
      `${closed.join(", ")} cannot be set by an edit: work state, ownership, evidence and verification change only through their work actions. Editable fields: ${EDIT_WRITABLE_FIELDS.join(", ")}. Nothing was read or written.`,
      { fields: closed },
    );
  }
  const scalars = EDITABLE_SCALAR_FIELDS as Readonly<Record<string, string>>;
  const structured = Object.entries(fields)
    .filter(([name, value]) =>
      name in scalars
        ? typeof value !== scalars[name]
        : !isList(name, value) &&
          (typeof value !== "string" ||
            !(EDITABLE_TEXT_FIELDS as readonly string[]).includes(name)),
    )
    .map(([name]) => name);
  if (structured.length > 0) {
    throw new LedgerError(
      "Unsupported",
      `Setting ${structured.join(", ")} this way needs the general source editor (lists and other structured values), which this version does not have; it edits ${EDIT_WRITABLE_FIELDS.filter((f) => (EDITABLE_TEXT_FIELDS as readonly string[]).includes(f)).join(", ")} as text, ${EDIT_LIST_FIELDS.join(", ")} as lists of texts, required and required_for_v1 as booleans and score as a number. Nothing was read or written. Edit the other fields in the source by hand and reindex.`,
      { fields: structured },
    );
  }
  const text = Object.fromEntries(
    Object.entries(fields).filter(([name, value]) => !(name in scalars) && !isList(name, value)),
  );
  const values: Record<string, LedgerValue> =
    Object.keys(text).length === 0 ? {} : { ...textFields(text, WHAT) };
  for (const [name, value] of Object.entries(fields)) {
    if (isList(name, value)) {
      values[name] = listValue(name, value);
      continue;
    }
    if (!(name in scalars)) continue;
    if (typeof value === "number" && !Number.isFinite(value)) {
      throw new LedgerError("InvalidInput", `${WHAT}: ${name} must be a finite number.`, {
        field: name,
      });
    }
    values[name] = value as EditValue;
  }
  return {
    operation: "fields",
    kind: "work_item",
    target,
    source_fingerprint,
    fields: values,
  };
}

function normalize(change: Readonly<Record<string, unknown>>): Record<string, unknown> {
  onlyMembers(change, ["kind", "change"], WHAT);
  const inner = record(change["change"]);
  if (inner === undefined) {
    throw new LedgerError("InvalidInput", `${WHAT} needs change: the host edit to make.`);
  }
  const operation = inner["operation"];
  if (operation === "fields") return { kind: "edit", change: fieldsChange(inner) };
  if (operation === "activate_draft") {
    onlyMembers(inner, ["operation", "work", "source_fingerprint"], WHAT);
    return {
      kind: "edit",
      change: {
        operation,
        work: requiredText(inner, "work", WHAT),
        source_fingerprint: requiredText(inner, "source_fingerprint", WHAT),
      },
    };
  }
  throw new LedgerError(
    "Unsupported",
    "Edits through these tools are work-item fields and draft activation only; confirming completion is a person's action, and documents are edited in their files. Nothing was read or written.",
    { operation: typeof operation === "string" ? operation : null },
  );
}

/** Activation keeps the usual gates: a draft, with a goal and acceptance, its prerequisites done. */
async function checkActivation(env: ChangeEnv, target: WorkTarget): Promise<void> {
  const key = target.entity.key;
  if (target.entity.status !== "draft") {
    throw new LedgerError(
      "InvalidTransition",
      `${key} is ${target.entity.status}, not a draft, so there is nothing to activate.`,
      { work: key, status: target.entity.status },
    );
  }
  const goal = target.attributes["goal"];
  const acceptance = target.attributes["acceptance"];
  if (
    typeof goal !== "string" ||
    goal === "" ||
    !Array.isArray(acceptance) ||
    acceptance.length === 0
  ) {
    throw new LedgerError(
      "RuleViolation",
      `${key} needs a goal and at least one acceptance criterion before it can leave draft; add them (an edit of goal, or the source by hand) and preview again.`,
      { work: key },
    );
  }
  const unfinished = await env.store.read(async (db) => {
    const deps = await db
      .selectFrom("dependencies")
      .select("depends_on")
      .where("work_key", "=", key)
      .where("required", "=", 1)
      .execute();
    if (deps.length === 0) return [];
    const done = await db
      .selectFrom("entities")
      .select(["key", "status"])
      .where("kind", "=", "work")
      .where(
        "key",
        "in",
        deps.map((d) => d.depends_on),
      )
      .execute();
    const finished = new Set(done.filter((e) => e.status === "completed").map((e) => e.key));
    return deps.map((d) => d.depends_on).filter((k) => !finished.has(k));
  });
  if (unfinished.length > 0) {
    throw new LedgerError(
      "DependencyBlocked",
      `${key} stays a draft until its required prerequisites are completed: ${unfinished.join(", ")}.`,
      { work: key, blocked_by: unfinished },
    );
  }
}

/** Refines (`fields` of a work_item) or activates (`activate_draft`) a work item. */
export const hostEditKind: SourceChangeKind = {
  kind: "edit",
  normalize: (change) => normalize(change),
  async plan(env: ChangeEnv, change): Promise<PlannedChange> {
    const normalized = normalize(change);
    const inner = normalized["change"] as Record<string, unknown>;
    const activate = inner["operation"] === "activate_draft";
    const work = (activate ? inner["work"] : inner["target"]) as string;
    const target = await workTarget(env, work);
    const reviewed = inner["source_fingerprint"] as string;
    checkSourceFingerprint(target, reviewed);
    if (activate) {
      await checkActivation(env, target);
      await refuseOccupied(env, [work], "activating it");
    }
    const fields = activate
      ? { status: "planned" }
      : (inner["fields"] as Record<string, LedgerValue>);
    if (hasList(fields)) {
      const edit = planLedgerTextEdit(
        env.root,
        target.source.path,
        [{ operation: "fields", target: work, fields }],
        reviewed,
      );
      await checkCandidateGraph(env, target.source.path, edit.after_text);
      const previous: Record<string, unknown> = {};
      for (const name of Object.keys(fields)) {
        previous[name] = name === "title" ? target.entity.title : (target.attributes[name] ?? null);
      }
      const changed = edit.edits.length === 0 ? [] : Object.keys(fields);
      return { change: normalized, work, fields, edit: { ...edit, changed, previous } };
    }
    const edit = planWorkItemEdit(
      env.root,
      target.source.path,
      work,
      fields as Record<string, EditValue>,
      reviewed,
    );
    return { change: normalized, work, fields, edit };
  },
  replan(env: ChangeEnv, journaled: ChangeRecord) {
    const path = journaled.source_path ?? "";
    const before = journaled.before_fingerprint ?? "";
    const fields = journaled.plan.fields;
    if (!hasList(fields)) {
      return planWorkItemEdit(
        env.root,
        path,
        journaled.plan.work,
        fields as Record<string, EditValue>,
        before,
      );
    }
    const edit = planLedgerTextEdit(
      env.root,
      path,
      [{ operation: "fields", target: journaled.plan.work, fields }],
      before,
    );
    return { ...edit, changed: journaled.plan.changed, previous: journaled.plan.previous };
  },
  previewAnswer(planned: PlannedChange, facts: PreviewFacts) {
    const before = fieldsBefore(planned);
    return {
      status: "preview",
      project_revision: facts.project_revision,
      preview: {
        fingerprint: facts.preview_fingerprint,
        plan: {
          ...reviewedPlanHead(planned, facts),
          source: reviewedSource(planned),
          work: planned.work,
          before,
          after: planned.fields,
          changed_fields: planned.edit.changed,
          ...plannedTexts(planned),
        },
      },
      source_write_performed: false,
    };
  },
  outcomeAnswer: (answer) => answer,
};
