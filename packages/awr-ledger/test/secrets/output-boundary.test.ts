import { SYNTHETIC_VALUE } from "@awr/ledger-fixtures";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BACKENDS } from "../helpers/backends.js";
import { ledgerFailure } from "../helpers/failures.js";
import { type OpenProject, openFixtureProject } from "../helpers/projects.js";

/**
 * The secret policy on outputs (docs/design/secret-boundaries.md, sections 3 and 4), both
 * backends: rows planted straight into the projection stand for data stored before the policy.
 * Search shows a secret-bearing summary or snippet as `[redacted]` and leaves out a hit whose
 * title holds one; a context packet whose required record holds one is ContextIncomplete naming
 * the record, and an optional record holding one is left out. No answer repeats the value.
 */

const PLANTED = `password: ${SYNTHETIC_VALUE}`;

const refusal = (run: Promise<unknown>) => ledgerFailure(run, "answered with a planted credential");

describe.each(BACKENDS)("secret policy on search and context output, %s", (backend) => {
  let project: OpenProject;
  /** Plants before the first read, so no read cache holds the clean row. */
  const plant = (key: string, set: { title?: string; summary?: string; body?: string }) =>
    project.db.db.updateTable("entities").set(set).where("key", "=", key).execute();

  beforeEach(async () => {
    project = await openFixtureProject("basic", backend);
  });
  afterEach(() => project?.close());

  it("redacts a planted summary and leaves out a hit whose title holds a credential", async () => {
    await plant("PAY-2", { summary: `Hosted page ${PLANTED}` });
    await plant("rule#no-card-logs", { title: `Never log card numbers ${PLANTED}` });
    const found = await project.ledger.call("awr_search", { text: "hosted" });
    const hit = found.hits.find((h) => h.external_key === "PAY-2");
    expect(hit?.summary).toBe("[redacted]");
    const card = await project.ledger.call("awr_search", { text: "card" });
    expect(card.hits.map((h) => h.external_key)).not.toContain("rule#no-card-logs");
    expect(JSON.stringify([found, card])).not.toContain(SYNTHETIC_VALUE);
  });

  it("refuses a packet whose required hard rule holds a credential, naming the rule", async () => {
    await plant("rule#no-card-logs", { body: PLANTED });
    const error = await refusal(
      project.ledger.call("awr_context_compile", { work: "PAY-2", detached: true }),
    );
    expect(error.code).toBe("ContextIncomplete");
    expect(error.details).toMatchObject({ section: "rules", ref: "rule#no-card-logs" });
    expect(error.result).toBeUndefined();
    expect(JSON.stringify(error.toJSON())).not.toContain(SYNTHETIC_VALUE);
  });

  it("leaves out an optional record that holds a credential", async () => {
    await plant("PAY-2", { summary: PLANTED });
    // PAY-2 has evidence gaps, so the packet comes as ContextIncomplete with its result.
    const error = await refusal(
      project.ledger.call("awr_context_compile", { work: "PAY-2", detached: true, budget: 20_000 }),
    );
    expect(error.result).toHaveProperty("completeness");
    const compiled = error.result as { work_context?: { rendered_context: string } };
    const text = compiled.work_context?.rendered_context ?? "";
    expect(text).toContain("PAY-2");
    expect(JSON.stringify(compiled)).not.toContain(SYNTHETIC_VALUE);
  });

  it("shows recorded evidence that holds a credential as [redacted] in work get", async () => {
    await project.ledger.call(
      "awr_evidence_record",
      {
        external_key: "E-1",
        evidence_type: "test",
        level: "locally_verified",
        summary: "tests pass",
        locator: "ci://run/1",
        scope: ["PAY-2"],
        work: "PAY-2",
        expected_revision: await project.ledger.revision(),
      },
      { client: "stdio" },
    );
    await project.db.db.updateTable("evidence").set({ summary: PLANTED }).execute();
    const got = await project.ledger.call("awr_work_get", { work: "PAY-2" });
    expect(got.evidence.recorded).toMatchObject([
      { external_key: "E-1", summary: "[redacted]", locator: "ci://run/1" },
    ]);
    expect(JSON.stringify(got)).not.toContain(SYNTHETIC_VALUE);
  });
});
