import type { Colors } from "../output/style.js";
import { type Result, text } from "./view-parts.js";

/** How one change command names itself and its follow-up commands in its human output. */
export interface ChangeView {
  /** The first line's label: `Work edit`, `Host save`, `Work creation`, `Batch change`. */
  label: string;
  /** The CLI's request key (the tool's request_id). */
  key: string;
  /** The command that reads the outcome, e.g. `awr host status --key K`. */
  query: string;
  /** The command that resumes a pending change, without its --expected-revision. */
  recover: string;
  /** The step after a preview, given its fingerprint and revision. */
  accept: (fingerprint: string, revision: string) => string;
  /** The step after a completed change, when there is one. */
  done?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The review fingerprint of a preview or outcome, wherever its kind answers it. */
export function previewFingerprintOf(result: Result): string | undefined {
  if (typeof result["preview_fingerprint"] === "string") return result["preview_fingerprint"];
  const preview = result["preview"];
  if (isRecord(preview) && typeof preview["fingerprint"] === "string")
    return preview["fingerprint"];
  return undefined;
}

/** What to review of a preview: the work_edit's review, a new draft, a batch's outcomes, a plan. */
function reviewOf(result: Result): unknown {
  if (result["review"] !== undefined) return result["review"];
  const preview = result["preview"];
  if (!isRecord(preview)) return undefined;
  if (preview["new_record"] !== undefined) {
    return {
      external_key: result["external_key"],
      source_id: result["source_id"],
      new_record: preview["new_record"],
    };
  }
  if (result["outcomes"] !== undefined) {
    return { source_id: result["source_id"], outcomes: result["outcomes"] };
  }
  if (!isRecord(preview["plan"])) return undefined;
  // The identity hashes and the whole texts before and after are for --json; here, the change.
  const {
    project_id: _p,
    request_key: _k,
    request_hash: _h,
    project_revision: _r,
    before_text: _b,
    after_text: _a,
    ...plan
  } = preview["plan"];
  return plan;
}

function nextStep(status: string, result: Result, view: ChangeView): string {
  switch (status) {
    case "preview":
      return view.accept(
        previewFingerprintOf(result) ?? "FINGERPRINT",
        text(result["project_revision"]),
      );
    case "completed":
      return view.done ?? "nothing: the change is written to its source and indexed";
    case "no_change":
      return "nothing: the source already holds these values (nothing was written)";
    case "pending_recovery":
      return `resume it with \`${view.recover} --expected-revision REV\` (REV: the current revision, \`awr status\`); never with a new request`;
    case "requires_review":
      return "the change stopped without writing (its source was edited outside); read the source and preview a new change under a new request key";
    case "not found":
      return "no change of this client has this key; check the key (nothing is recorded, nothing was written)";
    default: {
      const guidance = result["guidance"];
      return isRecord(guidance) ? text(guidance["next_action"]) : "-";
    }
  }
}

/**
 * A change command's answer as a person reads it: status, request, revision, what to review,
 * the preview fingerprint, the next step and where to read the outcome. `--json` prints the
 * tool's answer instead.
 */
export function changeLines(result: Result, view: ChangeView, colors: Colors): string[] {
  const status =
    result["found"] === false
      ? "not found"
      : typeof result["status"] === "string"
        ? result["status"]
        : "-";
  const lines = [
    `${colors.bold(`${view.label}:`)} ${status}`,
    `Request: ${view.key}`,
    `Revision: ${text(result["project_revision"])}`,
  ];
  if (typeof result["change_kind"] === "string") lines.push(`Kind: ${result["change_kind"]}`);
  const review = reviewOf(result);
  if (review !== undefined) {
    lines.push(...JSON.stringify(review, null, 2).split("\n"));
  } else if (typeof result["phase"] === "string") {
    const phases = Array.isArray(result["phases"]) ? ` (${result["phases"].join(" → ")})` : "";
    lines.push(`Phase: ${result["phase"]}${phases}`);
    const source = result["source"];
    if (isRecord(source) && typeof source["path"] === "string") {
      const current =
        typeof result["current_source"] === "string" ? `, now ${result["current_source"]}` : "";
      lines.push(`Source: ${source["path"]}${current}`);
    }
    if (Array.isArray(result["changed_fields"]) && result["changed_fields"].length > 0) {
      lines.push(`Changed: ${result["changed_fields"].join(", ")}`);
    }
  }
  lines.push(
    `Preview: ${previewFingerprintOf(result) ?? "-"}`,
    `Next: ${nextStep(status, result, view)}`,
    `Outcome query: ${view.query}`,
  );
  return lines;
}
