import { isLedgerError, LedgerError } from "../errors.js";

/**
 * awr_context_compile's answer in the original's shape, in this one place: the packet under
 * `work_context`, `completeness` beside it, and the `continuity` envelope (waits and replies,
 * outside the packet's budget and hash) when the compiler provides one. A compiler that already
 * answers in this shape is passed through unchanged.
 */
export type ContextToolResult<C extends { project_revision: number; completeness: unknown }> = {
  project_revision: number;
  work_context: Omit<C, "project_revision" | "completeness" | "continuity">;
  completeness: C["completeness"];
  continuity?: unknown;
};

export function contextToolResult<C extends { project_revision: number; completeness: unknown }>(
  compiled: C,
): ContextToolResult<C> {
  if ("work_context" in compiled) return compiled as unknown as ContextToolResult<C>;
  const { project_revision, completeness, continuity, ...packet } = compiled as C & {
    continuity?: unknown;
  };
  return {
    project_revision,
    work_context: packet,
    completeness,
    ...(continuity === undefined ? {} : { continuity }),
  };
}

/**
 * A context that cannot be compiled because a required fact is missing (an unknown work item,
 * no work to compile for) is ContextIncomplete with the completeness and a diagnostic, as an
 * error body: `{work_context: null, completeness: {complete: false, ...}, diagnostic_text}`.
 * Returns undefined for any other error.
 */
export function missingWorkContext(error: unknown, revision: number): LedgerError | undefined {
  if (!isLedgerError(error)) return undefined;
  const work = error.details?.["work"];
  const unknownWork = error.code === "NotFound" && typeof work === "string";
  if (!unknownWork && error.code !== "ContextIncomplete") return undefined;
  if (error.result !== undefined) return undefined;
  const missing = unknownWork
    ? [{ section: "work", ref: work, reason: "not in the projection" }]
    : [{ section: "work", ref: null, reason: "no work item selected" }];
  const message = unknownWork
    ? `Context is incomplete: work item ${work} is not in the projection. Check the key (awr_search), or reindex if its source changed.`
    : error.message;
  return new LedgerError("ContextIncomplete", message, error.details, {
    cause: error,
    result: {
      project_revision: revision,
      work_context: null,
      completeness: { complete: false, required: [], included: [], omitted: [], missing },
      diagnostic_text: `CONTEXT INCOMPLETE\n${message}`,
    },
  });
}
