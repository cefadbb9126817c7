/** Where a journaled change's answer says it writes: its work item (or targets) and source path. */
export function whereRecorded(answer: Record<string, unknown>): { work: string; path: string } {
  const source = (answer["source"] ?? {}) as Record<string, unknown>;
  return { work: String(source["work"] ?? ""), path: String(source["path"] ?? "") };
}

/** The kind's own journaled facts of an answer (see RecordedPlan.details). */
export function detailsOf(answer: Record<string, unknown>): Record<string, unknown> {
  return (answer["details"] ?? {}) as Record<string, unknown>;
}

/** An answer without the kind's journaled facts, which it shows in its own fields instead. */
export function withoutDetails(answer: Record<string, unknown>): Record<string, unknown> {
  const { details: _details, ...rest } = answer;
  return rest;
}
