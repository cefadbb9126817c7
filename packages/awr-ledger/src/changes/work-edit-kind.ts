import { LedgerError } from "../errors.js";
import { planWorkItemEdit } from "../sources/yaml-write-back.js";
import { onlyMembers, record, requiredText, textFields } from "./change-fields.js";
import type { ChangeEnv, PlannedChange, PreviewFacts, SourceChangeKind } from "./change-kind.js";
import { fieldsBefore } from "./reviewed-plan.js";
import { checkSourceFingerprint, workTarget } from "./work-target.js";

/** The fields the small work edit sets, each as text. */
export const WORK_EDIT_FIELDS = ["title", "summary", "priority", "next_action"] as const;

const WHAT = "A work_edit change";

function normalize(
  change: Readonly<Record<string, unknown>>,
  step: "preview" | "apply",
): Record<string, unknown> {
  onlyMembers(change, ["kind", "work", "fields", "source_fingerprint"], WHAT);
  const work = requiredText(change, "work", WHAT);
  const fields = record(change["fields"]);
  if (fields === undefined) {
    throw new LedgerError("InvalidInput", `${WHAT} needs fields: an object of the fields to set.`, {
      field: "fields",
    });
  }
  const other = Object.entries(fields).filter(
    ([name, value]) =>
      !(WORK_EDIT_FIELDS as readonly string[]).includes(name) || typeof value !== "string",
  );
  if (other.length > 0) {
    throw new LedgerError(
      "Unsupported",
      `A work_edit sets only the text fields ${WORK_EDIT_FIELDS.join(", ")}; ${other.map(([n]) => n).join(", ")} cannot be set this way. Use the work actions for status, ownership and completion, and change kind "edit" for the other planning fields. Nothing was read or written.`,
      { fields: other.map(([n]) => n), allowed: WORK_EDIT_FIELDS },
    );
  }
  const checked = textFields(fields, WHAT);
  const reviewed = change["source_fingerprint"];
  if (reviewed !== undefined && reviewed !== null && typeof reviewed !== "string") {
    throw new LedgerError("InvalidInput", `${WHAT}: source_fingerprint must be a string or null.`);
  }
  if (step === "apply" && (typeof reviewed !== "string" || reviewed === "")) {
    throw new LedgerError(
      "InvalidInput",
      "Applying a work_edit needs the source_fingerprint its preview returned: apply the `change` the preview answered with. Nothing was written.",
      { field: "source_fingerprint" },
    );
  }
  return {
    kind: "work_edit",
    work,
    fields: checked,
    source_fingerprint: typeof reviewed === "string" && reviewed !== "" ? reviewed : null,
  };
}

const PREVIEW_GUIDANCE = {
  when: "The field edits shown under review are the ones you asked for",
  basis:
    "The reviewed source fingerprint and project revision; every other byte of the source is kept",
  next_action:
    "Call awr_change_apply with the returned change, the same request_id and reason, project_revision as expected_revision and preview_fingerprint as expected_preview",
  recheck:
    "If the source changed or an outcome is uncertain, ask awr_change_status (kind work_edit) before any retry",
};

const OUTCOME_GUIDANCE = {
  when: "The edit has an outcome",
  basis: "The durable source-change journal entry of this request",
  next_action:
    "Act on status; a pending_recovery change is resumed with awr_change_recover, never by a new request",
  recheck:
    "If the source changed or an outcome is uncertain, ask awr_change_status (kind work_edit) before any retry",
};

/** The small edit shortcut: a work item's title, summary, priority or next_action. */
export const workEditKind: SourceChangeKind = {
  kind: "work_edit",
  normalize,
  async plan(env: ChangeEnv, change): Promise<PlannedChange> {
    const normalized = normalize(change, "preview");
    const work = normalized["work"] as string;
    const fields = normalized["fields"] as Record<string, string>;
    const target = await workTarget(env, work);
    const reviewed =
      (normalized["source_fingerprint"] as string | null) ?? target.source.fingerprint;
    checkSourceFingerprint(target, reviewed);
    const edit = planWorkItemEdit(env.root, target.source.path, work, fields, reviewed);
    return { change: { ...normalized, source_fingerprint: reviewed }, work, fields, edit };
  },
  previewAnswer(planned: PlannedChange, facts: PreviewFacts) {
    const before = fieldsBefore(planned);
    return {
      status: "preview",
      project_revision: facts.project_revision,
      preview_fingerprint: facts.preview_fingerprint,
      review: {
        source: {
          path: planned.edit.path,
          work: planned.work,
          fingerprint: planned.edit.before_fingerprint,
        },
        before,
        after: planned.fields,
        changed_fields: planned.edit.changed,
      },
      change: planned.change,
      request_key: facts.request_key,
      view: "work_edit",
      guidance: PREVIEW_GUIDANCE,
      source_write_performed: false,
    };
  },
  outcomeAnswer(answer) {
    // The journal keeps the reviewed proposal; the answer does not repeat it.
    const { outcome: _outcome, ...rest } = answer;
    return { ...rest, view: "work_edit", guidance: OUTCOME_GUIDANCE };
  },
};
