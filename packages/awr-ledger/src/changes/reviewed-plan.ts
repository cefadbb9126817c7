import { decodeSource } from "../sources/text-bytes.js";
import type { PlannedChange, PreviewFacts } from "./change-kind.js";

/**
 * The head every preview's `plan` starts with: the request's identity, the revision it was
 * reviewed at, and the change as it is applied.
 */
export function reviewedPlanHead(planned: PlannedChange, facts: PreviewFacts) {
  return {
    project_id: facts.project_id,
    request_key: facts.request_key,
    request_hash: facts.request_hash,
    project_revision: facts.project_revision,
    change: planned.change,
  };
}

/** The source file a plan reads, with the fingerprint it was reviewed at. */
export function reviewedSource(planned: PlannedChange): { path: string; fingerprint: string } {
  return { path: planned.edit.path, fingerprint: planned.edit.before_fingerprint };
}

/** The planned file's text before and after the change (decoded). */
export function plannedTexts(planned: PlannedChange): { before_text: string; after_text: string } {
  return {
    before_text: decodeSource(planned.edit.before).text,
    after_text: decodeSource(planned.edit.after).text,
  };
}

/** Each field the change sets, with its value in the source before (null when absent). */
export function fieldsBefore(planned: PlannedChange): Record<string, unknown> {
  const before: Record<string, unknown> = {};
  for (const name of Object.keys(planned.fields))
    before[name] = planned.edit.previous[name] ?? null;
  return before;
}
