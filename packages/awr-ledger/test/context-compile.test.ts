import {
  countTokens,
  initProject,
  type Ledger,
  type LedgerError,
  openLedger,
  type ToolInput,
} from "@awr/awr-ledger";
import { generateFixtureProject } from "@awr/awr-ledger/fixtures";
import { afterEach, describe, expect, it } from "vitest";
import { BACKENDS, freshDatabase, tempRoot } from "./helpers/backends.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

const caller = { client: "stdio" };

/** The packet and its completeness, as awr_context_compile answers them. */
async function compile(ledger: Ledger, input: ToolInput<"awr_context_compile">) {
  const result = await ledger.call("awr_context_compile", input, caller);
  return { ...result.work_context, completeness: result.completeness };
}

describe.each(BACKENDS)("context compile on %s", (backend) => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  it("renders the item, its acceptance, hard rules in scope and the optional context within budget", async () => {
    p = await openFixtureProject("basic", backend);
    const ctx = await compile(p.ledger, { work: "INV-1", budget: 5000 });
    expect(ctx.work).toBe("INV-1");
    expect(ctx.rendered_context).toContain("INV-1: Invoice PDF");
    expect(ctx.rendered_context).toContain("[ac-1] PDF is generated");
    expect(ctx.rendered_context).toContain("rule#no-card-logs");
    expect(ctx.rendered_context).not.toContain("rule#pay-tests");
    expect(ctx.rendered_context).toContain(
      "## Unmet required dependencies\n- PAY-2: Hosted payment page [ready]",
    );
    expect(ctx.rendered_context).toContain("goal#invoices");
    expect(ctx.token_estimate).toBe(countTokens(ctx.rendered_context));
    expect(ctx.token_estimate).toBeLessThanOrEqual(5000);
    expect(ctx.completeness.complete).toBe(true);
    expect(ctx.completeness.required.map((r) => r.section)).toEqual(
      expect.arrayContaining(["work", "acceptance", "hard_rules", "unmet_dependencies"]),
    );
  });

  it("includes path- and tag-scoped hard rules for an item that matches them", async () => {
    p = await openFixtureProject("basic", backend);
    const ctx = await compile(p.ledger, { work: "PAY-2" });
    expect(ctx.rendered_context).toContain("rule#pay-tests");
    expect(ctx.rendered_context).toContain("decision#hosted-page");
    expect(ctx.rendered_context).toContain(
      "[ac-webhook] Webhook marks the order paid (evidence level: real_environment_validated)",
    );
  });

  it("gives the same hash for the same input and state", async () => {
    p = await openFixtureProject("basic", backend);
    const a = await compile(p.ledger, { work: "PAY-2", budget: 800 });
    const b = await compile(p.ledger, { work: "PAY-2", budget: 800 });
    expect(a.context_hash).toBe(b.context_hash);
    expect(a.context_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("trims optional records whole by priority when the budget is tight, reporting them", async () => {
    p = await openFixtureProject("basic", backend);
    const full = await compile(p.ledger, { work: "PAY-2", budget: 5000 });
    const requiredOnly = countTokens(full.rendered_context.split("\n## Goals")[0] as string);
    const tight = await compile(p.ledger, { work: "PAY-2", budget: requiredOnly + 30 });
    expect(tight.token_estimate).toBeLessThanOrEqual(requiredOnly + 30);
    expect(tight.completeness.complete).toBe(false);
    expect(tight.completeness.omitted.filter((o) => o.reason === "budget").length).toBeGreaterThan(
      0,
    );
    expect(tight.rendered_context).toContain("[ac-webhook]");
    for (const included of tight.completeness.included) {
      expect(full.completeness.included.map((i) => i.ref)).toContain(included.ref);
    }
  });

  it("fails with BudgetExceeded {required, budget} when the required facts cannot fit", async () => {
    p = await openFixtureProject("basic", backend);
    const error = (await p.ledger
      .call("awr_context_compile", { work: "PAY-2", budget: 20 }, caller)
      .catch((e: unknown) => e)) as LedgerError;
    expect(error.code).toBe("BudgetExceeded");
    expect(error.details).toEqual({ required: expect.any(Number), budget: 20 });
    expect(error.details?.["required"] as number).toBeGreaterThan(20);
  });

  it("with after_revision keeps the required facts and only what changed since", async () => {
    p = await openFixtureProject("basic", backend);
    const delta = await compile(p.ledger, { work: "PAY-2", after_revision: 1 });
    expect(delta.since_revision).toBe(1);
    expect(delta.rendered_context).toContain("[ac-webhook]");
    expect(delta.completeness.included).toEqual([]);
    expect(delta.completeness.omitted.every((o) => o.reason === "unchanged")).toBe(true);
  });

  it("answers an unknown work item with ContextIncomplete and its completeness", async () => {
    p = await openFixtureProject("basic", backend);
    const error = (await p.ledger
      .call("awr_context_compile", { work: "NOPE", detached: true }, caller)
      .catch((e: unknown) => e)) as LedgerError;
    expect(error.code).toBe("ContextIncomplete");
    expect(error.result).toMatchObject({
      ok: false,
      work_context: null,
      completeness: { complete: false, missing: [{ section: "work", ref: "NOPE" }] },
      error: { code: "ContextIncomplete" },
      read_only: true,
    });
    expect(error.result?.["diagnostic_text"]).toContain("CONTEXT INCOMPLETE");
  });

  it("refuses bad input: checkpoint with after_revision, an out-of-range budget, no work without detached", async () => {
    p = await openFixtureProject("basic", backend);
    await expect(
      p.ledger.call(
        "awr_context_compile",
        { work: "PAY-2", checkpoint: "c", after_revision: 1 },
        caller,
      ),
    ).rejects.toMatchObject({ code: "InvalidInput" });
    await expect(
      p.ledger.call("awr_context_compile", { work: "PAY-2", budget: 0 }, caller),
    ).rejects.toMatchObject({ code: "InvalidInput" });
    await expect(p.ledger.call("awr_context_compile", {}, caller)).rejects.toMatchObject({
      code: "ContextIncomplete",
    });
    const overview = await compile(p.ledger, { detached: true });
    expect(overview.rendered_context).toContain("rule#no-card-logs");
    expect(overview.rendered_context).toContain("goal#checkout");
  });
});

describe("context for a synthetic project of 150 items", () => {
  it("keeps every active item's context within 5000 tokens with all of its required facts", async () => {
    const { root, remove } = tempRoot("awr-synthetic-");
    const db = await freshDatabase("sqlite");
    try {
      const fixture = generateFixtureProject(root, { items: 150, seed: 7 });
      await initProject({ root, manifest: fixture.manifest_path, accept: true, database: db.db });
      const ledger = await openLedger({ root, database: db.db });
      try {
        const active = fixture.items.filter((i) => i.active);
        expect(active.length).toBeGreaterThan(80);
        for (const item of active) {
          const ctx = await compile(ledger, { work: item.work, budget: 5000 });
          expect(ctx.token_estimate).toBeLessThanOrEqual(5000);
          for (const fact of item.required_facts)
            expect(ctx.rendered_context, `${item.work}: ${fact}`).toContain(fact);
        }
      } finally {
        await ledger.close();
      }
    } finally {
      await db.close();
      remove();
    }
  });
});
