// Chaos: a writer looping over event, evidence and session writes is killed with SIGKILL at a
// random moment, several times over. Every write it saw acknowledged is recorded exactly once;
// the one in flight was either never journaled (no effect) or is settled by operation recover
// with an effect count that matches the settled outcome. AWR_CHAOS_FULL=1 kills 20 times.
import { isLedgerError } from "@awr/awr-ledger";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CALLER,
  CHAOS_FULL,
  type ChaosProject,
  type Kind,
  openChaosProject,
} from "./fixtures/chaos-ledger.js";

const KILLS = CHAOS_FULL ? 20 : 4;
const LOOPED = ["event", "evidence", "session"] as const;

let project: ChaosProject;
beforeAll(async () => {
  project = await openChaosProject();
}, 60_000);
afterAll(() => project?.close());

describe("journaled writes survive kill -9 at random moments", () => {
  it("loses no acknowledged write, duplicates none, and settles the one in flight", async () => {
    const { ledger } = project;
    let settled = 0;
    for (let round = 0; round < KILLS; round++) {
      const ops = LOOPED.map((kind) => project.opFor(kind, `rand-${round}-${kind}`));
      const exit = await project.runWriter({ ops, loop: true }, 3 + Math.floor(Math.random() * 10));
      expect(exit.signal, exit.stderr).toBe("SIGKILL");
      const begun = new Set(
        exit.lines.filter((l) => l.startsWith("begin ")).map((l) => String(l.split(" ")[1])),
      );
      const done = new Set(
        exit.lines.filter((l) => l.startsWith("done ")).map((l) => String(l.split(" ")[1])),
      );
      expect(done.size).toBeGreaterThanOrEqual(3);
      for (const id of begun) {
        const kind = LOOPED.find((k) => id.includes(`-${k}-r`)) as Kind;
        const op = { tool: "", input: { request_id: id } };
        const probe = await ledger
          .call("awr_operation_get", { request_id: id }, CALLER)
          .catch((error) => {
            if (isLedgerError(error, "NotFound")) return undefined;
            throw error;
          });
        if (done.has(id)) {
          expect(probe?.outcome).toBe("recorded");
          expect(await project.effectCount(kind, op)).toBe(1);
        } else if (probe === undefined) {
          expect(await project.effectCount(kind, op)).toBe(0);
        } else {
          let outcome = probe.write_outcome;
          if (probe.outcome === "unknown") {
            const recovered = await ledger.call(
              "awr_operation_recover",
              { request_id: id, expected_revision: await project.currentRevision() },
              CALLER,
              { signal: project.takeoverSignal() },
            );
            outcome = recovered.write_outcome;
            settled++;
          }
          expect(["committed", "not_committed"]).toContain(outcome);
          expect(await project.effectCount(kind, op)).toBe(outcome === "committed" ? 1 : 0);
        }
      }
    }
    await project.expectCleanLog();
    expect(settled).toBeLessThanOrEqual(KILLS);
  }, 300_000);
});
