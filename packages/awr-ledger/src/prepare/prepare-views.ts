import type { ContextCompileResult, WorkContext } from "../context/context-types.js";
import { LIMITS } from "../core/limits.js";
import { LedgerError } from "../errors.js";
import type { FullResultPointer, ResponseViewReceipt } from "../work/response-view.js";
import { type ActionGuidance, actionGuidance } from "./action-guidance.js";
import type { PreparedSession, PreparedWork, WorkPrepareInput } from "./work-prepare.js";

/** A prepared answer as a view shows it: some fields may be left out (`omitted_fields`). */
export type PreparedView = Omit<PreparedWork, "context" | "next_action"> & {
  context: Omit<ContextCompileResult, "work_context" | "completeness"> & {
    work_context: Partial<WorkContext> | null;
    completeness: Partial<ContextCompileResult["completeness"]>;
  };
  next_action?: PreparedWork["next_action"];
  guidance?: ActionGuidance;
  response_view?: ResponseViewReceipt;
};

/** Where a view's full answer is: the same preparation asked again with the full view. */
function fullResult(input: WorkPrepareInput): FullResultPointer {
  const { response_view: _view, ...rest } = input;
  const args = Object.fromEntries(
    Object.entries(rest).filter(([, value]) => value !== undefined && value !== null),
  );
  return {
    tool: "awr_work_prepare",
    arguments: args,
    basis: "a fresh read; compare project_revision and context_hash with this answer",
  };
}

/**
 * The summary's omissions: the packet's chunk and entity indexes (what was selected, not what
 * the packet says; the rendered text, hash and identity stay).
 */
function summarized(prepared: PreparedWork): { view: PreparedView; omitted: string[] } {
  const omitted: string[] = [];
  const packet = prepared.context.work_context;
  if (packet === null) return { view: prepared, omitted };
  const { selected_chunks: _chunks, selected_entities: _entities, ...kept } = packet;
  omitted.push("context.work_context.selected_chunks", "context.work_context.selected_entities");
  return { view: { ...prepared, context: { ...prepared.context, work_context: kept } }, omitted };
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Applies the requested view to a prepared answer. `full` is the answer as it is. `summary`
 * leaves out the packet's indexes. `action` also leaves out what repeats elsewhere in the
 * answer (the completeness' source versions when they equal the packet identity's, and the
 * top-level next_action code, which the guidance replaces) and adds one guidance card. An
 * incomplete preparation is never shortened: it keeps every field, and `action` only adds the
 * card that says to fix the gaps.
 */
export function preparedView(
  prepared: PreparedWork,
  session: PreparedSession | null,
  input: WorkPrepareInput,
): PreparedView {
  const view = input.response_view ?? "full";
  if (view === "full") return prepared;
  const complete = prepared.context.completeness.complete;
  if (view === "summary") {
    if (!complete) return prepared;
    const { view: shown, omitted } = summarized(prepared);
    if (omitted.length === 0) return shown;
    return {
      ...shown,
      response_view: {
        version: 1,
        view: "summary",
        omitted_fields: omitted,
        full_result: fullResult(input),
      },
    };
  }
  const guidance = actionGuidance(prepared, session);
  const compaction = session?.compaction;
  if (compaction != null) {
    // The action view states the session's compaction assessment beside its waits.
    prepared = {
      ...prepared,
      continuity: {
        ...prepared.continuity,
        compaction: {
          state: compaction.state,
          observation_event_id: compaction.observation_event_id,
          post_compaction_percent: compaction.post_compaction_percent,
        },
      },
    };
  }
  const receipt = (omitted: string[]): ResponseViewReceipt => ({
    version: 1,
    view: "action",
    omitted_fields: omitted,
    guidance_max_bytes: LIMITS.actionGuidanceBytes,
    ...(complete ? { full_result: fullResult(input) } : {}),
  });
  if (!complete) return { ...prepared, guidance, response_view: receipt([]) };
  const { view: shown, omitted } = summarized(prepared);
  const identity = prepared.context.work_context?.identity.source_versions;
  const { source_versions, ...completeness } = shown.context.completeness;
  const context = { ...shown.context };
  if (Array.isArray(identity) && sameJson(identity, source_versions)) {
    context.completeness = completeness;
    omitted.push("context.completeness.source_versions");
  }
  const { next_action: _next, ...rest } = shown;
  omitted.push("next_action");
  return { ...rest, context, guidance, response_view: receipt(omitted) };
}

/**
 * The answer of awr_work_prepare: a preparation whose context has required gaps is
 * ContextIncomplete carrying the whole (unshortened) answer, as awr_context_compile answers an
 * incomplete packet; its `context.completeness` says what is missing.
 */
export function completePreparation(view: PreparedView): PreparedView {
  if (view.context.completeness.complete === true) return view;
  throw new LedgerError(
    "ContextIncomplete",
    "The work's required context has gaps; inspect context.completeness before execution.",
    undefined,
    { result: { ...view } },
  );
}
