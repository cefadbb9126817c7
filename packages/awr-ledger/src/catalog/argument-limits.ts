import { LIMITS } from "./limits.js";

export type ArgumentsProblem =
  | { kind: "depth"; limit: number }
  | { kind: "size"; bytes: number; limit: number };

/**
 * Whether a call's arguments are too deep or too large, found without recursion (an object
 * nested ten thousand levels is measured, not walked on the stack).
 */
export function argumentsProblem(args: unknown): ArgumentsProblem | undefined {
  const stack: [unknown, number][] = [[args, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (value === null || typeof value !== "object") continue;
    if (depth > LIMITS.argumentsDepth) return { kind: "depth", limit: LIMITS.argumentsDepth };
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  const bytes = Buffer.byteLength(JSON.stringify(args ?? {}), "utf8");
  return bytes > LIMITS.argumentsBytes
    ? { kind: "size", bytes, limit: LIMITS.argumentsBytes }
    : undefined;
}

export function describeArgumentsProblem(problem: ArgumentsProblem): string {
  return problem.kind === "depth"
    ? `The arguments nest deeper than ${problem.limit} levels; no AWR argument needs that. Send flat values as the input schema says.`
    : `The arguments are ${problem.bytes} bytes; the limit is ${problem.limit} (1 MiB). Send less (e.g. a shorter payload or summary).`;
}
