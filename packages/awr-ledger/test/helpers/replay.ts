/**
 * What a journaled write's replay answers when nothing was written since its first answer: that
 * answer with `replayed: true` and its `operation` marked replayed.
 */
export function replayOf<T extends object>(first: T): T & { replayed: true } {
  const operation = (first as { operation?: Record<string, unknown> }).operation;
  return { ...first, operation: { ...operation, replayed: true }, replayed: true };
}
