import { countTokens } from "@awr/awr-ledger";
import { afterAll, describe, expect, it } from "vitest";
import { recoveryCases } from "../../../scripts/bench/compact-recovery.mjs";
import { awr, removeTemps, tempDir } from "./support/cli-harness.js";

// The compact-recovery bench's walk (`pnpm bench --only compact-recovery`), untimed and through
// the CLI from sources: in each of the original's four cases a new conversation recovers the
// next action, the open loops, the pending waits and the claims within two calls, from an L0
// packet of at most 1,000 o200k tokens.

afterAll(removeTemps);

describe("compact recovery", () => {
  it("recovers the four facts in at most two calls and 1,000 tokens in every case", async () => {
    const cases = await recoveryCases({
      cli: async (root, args) => {
        const result = await awr(["--project", root, ...args]);
        return { code: result.code, stdout: result.stdout, stderr: result.stderr };
      },
      dir: await tempDir("awr-compact-recovery-"),
      countTokens,
    });
    expect(cases.map((c) => c.id)).toEqual([
      "source-before-checkpoint",
      "source-after-checkpoint",
      "missing-checkpoint",
      "missing-rule-source",
    ]);
    for (const c of cases) {
      expect({ id: c.id, facts: c.facts }).toEqual({
        id: c.id,
        facts: { nextAction: true, openLoops: true, waits: true, claims: true },
      });
      expect(c.recoveryCalls, c.id).toBeLessThanOrEqual(2);
      expect(c.bootstrapTokens, c.id).toBeLessThanOrEqual(1000);
      expect(c.compactionState, c.id).toBe("handoff_candidate");
    }
    // The unavailable rule source is reported as a gap, never as "no hard rules apply".
    expect(cases.map((c) => c.recoveryCodes)).toEqual([
      ["complete"],
      ["complete"],
      ["complete"],
      ["incomplete: source_missing", "complete"],
    ]);
  }, 120_000);
});
