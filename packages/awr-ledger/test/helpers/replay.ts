import { expect } from "vitest";

/**
 * What a journaled write's replay answers when nothing was written since its first answer: that
 * answer with `replayed: true` and its `operation` marked replayed.
 */
export function replayOf<T extends object>(first: T): T & { replayed: true } {
  const operation = (first as { operation?: Record<string, unknown> }).operation;
  return { ...first, operation: { ...operation, replayed: true }, replayed: true };
}

/**
 * What a replay answers for a request settled by awr_operation_recover: the recorded result of
 * the recovery (`recovered`), with the revision it was recorded at as receipt_project_revision.
 */
export function replayOfRecovered(
  recovered: Record<string, unknown> | undefined,
  requestId: string,
): Record<string, unknown> {
  return {
    ok: true,
    ...recovered,
    receipt_project_revision: recovered?.["project_revision"],
    operation: {
      id: expect.any(String),
      request_id: requestId,
      status: "finished",
      replayed: true,
    },
    replayed: true,
  };
}
