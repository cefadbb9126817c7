import { readFileSync } from "node:fs";
import { it } from "vitest";

/**
 * The isolation conditions' ids (conditions.json) and the one way to register a case. A case's
 * test title is exactly its id, and the enclosing describe is the backend's name, so the CI check
 * (scripts/check-isolation-report.mjs) can read the 20 x 2 matrix from vitest's JSON report.
 */
interface ConditionEntry {
  id: string;
  area: string;
  wording: string;
}

const listed = JSON.parse(readFileSync(new URL("../conditions.json", import.meta.url), "utf8")) as {
  conditions: ConditionEntry[];
};

export const CONDITION_IDS: ReadonlySet<string> = new Set(listed.conditions.map((c) => c.id));

/** The time one case may take: condition 3 runs some 30 processes, on a machine other work shares. */
const CASE_TIMEOUT_MS = 300_000;

/** Registers `it(id, fn)`; an id conditions.json does not list throws at collection. */
export function condition(id: string, fn: () => Promise<void>): void {
  if (!CONDITION_IDS.has(id)) {
    throw new Error(
      `isolation condition "${id}" is not in apps/service/test/isolation/conditions.json; add it there or use a listed id`,
    );
  }
  it(id, fn, CASE_TIMEOUT_MS);
}
