export function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

/** The stderr tail carried by an error or one of its causes (transports attach it). */
export function errorStderrTail(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    const tail = (current as { stderrTail?: unknown }).stderrTail;
    if (typeof tail === "string" && tail.length > 0) return tail;
    current = current.cause;
  }
  return undefined;
}
