import { countTokens, initProject, openLedger } from "@awr/awr-ledger";
import { generateFixtureProject } from "@awr/ledger-fixtures";
import { afterEach, describe, expect, it } from "vitest";
import { BACKENDS, freshDatabase, tempRoot } from "./helpers/backends.js";
import { compileL1 } from "./helpers/context.js";
import { ledgerFailure } from "./helpers/failures.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

const caller = { client: "stdio" };
const failure = (promise: Promise<unknown>) => ledgerFailure(promise, "expected a LedgerError");

describe.each(BACKENDS)("context compile (L1) on %s", (backend) => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  it("states the item's identity, state, acceptance, hard rules and decisions, and is complete", async () => {
    p = await openFixtureProject("basic", backend);
    const ctx = await compileL1(
      p.ledger,
      { work: "PAY-2", goals: ["goal#checkout"], budget: 5000 },
      caller,
    );
    const pack = ctx.work_context;
    if (pack === null) throw new Error("no packet");
    const text = pack.rendered_context;
    expect(ctx).toMatchObject({ level: "L1", selection_basis: "explicit_work", session_id: null });
    expect(pack.identity).toMatchObject({ work_item_key: "PAY-2", project_key: "SHOP" });
    expect(text).toContain(pack.identity.work_item_id);
    expect(text).toContain('Status: "ready" (raw "ready")');
    expect(text).toContain("Blocker present: false");
    expect(text).toContain("Create the redirect endpoint");
    expect(text).toContain("Customer is redirected to the hosted page");
    expect(text).toContain(
      "Webhook marks the order paid [ac-webhook; evidence level real_environment_validated]",
    );
    expect(text).toContain("Never log card numbers\n\nCard data must never reach logs or events.");
    expect(text).toContain(
      "Payment code has tests\n\nEvery change under src/payments needs tests.",
    );
    expect(text).toContain("[decision:decision#hosted-page]");
    expect(text).not.toContain("Docs are optional");
    const required = pack.selected_chunks.filter((c) => c.required).map((c) => c.key);
    expect(required).toEqual(
      expect.arrayContaining([
        "PAY-2",
        "acceptance",
        "rule#no-card-logs",
        "rule#pay-tests",
        "goal:goal#checkout",
      ]),
    );
    expect(pack.selected_chunks.find((c) => c.key === "resolved:PAY-1")?.required).toBe(false);
    expect(pack.token_estimate).toBe(countTokens(text));
    expect(pack.token_estimate).toBeLessThanOrEqual(5000);
    expect(pack.context_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(ctx.completeness).toMatchObject({
      complete: true,
      status: "CONTEXT COMPLETE",
      rules_complete: true,
      unresolved_required_dependencies: [],
      issues: [],
    });
  });

  it("reports an item whose rule context or state is unknown as incomplete, naming each gap", async () => {
    p = await openFixtureProject("basic", backend);
    const ctx = await compileL1(p.ledger, { work: "INV-1", goals: ["goal#invoices"] }, caller);
    const text = ctx.work_context?.rendered_context ?? "";
    expect(ctx.completeness.complete).toBe(false);
    expect(ctx.completeness.rules_complete).toBe(false);
    expect(ctx.completeness.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          code: "hard_rule_unresolved",
          reference: "rule#pay-tests",
          reason: expect.stringContaining("path context is unknown"),
        }),
        expect.objectContaining({ code: "work_state_incomplete", reference: "INV-1" }),
      ]),
    );
    // Undecidable hard rules are required facts too, stated with why they are undecided.
    expect(text).toContain("[unresolved-rule:rule#pay-tests]");
    expect(text).toContain("Every change under src/payments needs tests.");
    expect(ctx.omitted_refs).toEqual([
      expect.objectContaining({ kind: "rule", reference: "rule#docs" }),
    ]);
    expect(ctx.completeness.unresolved_required_dependencies).toEqual(["PAY-2"]);
    expect(text).toContain("[required:PAY-2]");

    // Naming the paths and tags in play settles the rule: it does not reach this item.
    const settled = await compileL1(
      p.ledger,
      { work: "INV-1", goals: ["goal#invoices"], paths: ["src/invoices/pdf.ts"], tags: [] },
      caller,
    );
    expect(settled.completeness.issues.map((i) => i.code)).toEqual(["work_state_incomplete"]);
    expect(settled.work_context?.rendered_context).not.toContain("rule#pay-tests");
  });

  it("counts a missing goal context as incomplete (no primary goal source, none named)", async () => {
    p = await openFixtureProject("basic", backend);
    const ctx = await compileL1(p.ledger, { work: "PAY-2" }, caller);
    expect(ctx.goal_selection_basis).toBe("project_primary_goal_sources");
    expect(ctx.completeness.goal_context_complete).toBe(false);
    expect(ctx.completeness.issues.map((i) => i.code)).toEqual(["goal_context_missing"]);
  });

  it("gives the same hash for the same input and state, another for another budget", async () => {
    p = await openFixtureProject("basic", backend);
    const input = { work: "PAY-2", goals: ["goal#checkout"], budget: 800 };
    const a = await compileL1(p.ledger, input, caller);
    const b = await compileL1(p.ledger, input, caller);
    const c = await compileL1(p.ledger, { ...input, budget: 900 }, caller);
    expect(a.work_context?.context_hash).toBe(b.work_context?.context_hash);
    expect(c.work_context?.context_hash).not.toBe(a.work_context?.context_hash);
  });

  it("leaves optional chunks out whole when the budget is tight and keeps every required one", async () => {
    p = await openFixtureProject("basic", backend);
    const input = { work: "PAY-2", goals: ["goal#checkout"] };
    const full = await compileL1(p.ledger, { ...input, budget: 5000 }, caller);
    const requiredTokens = full.work_context?.required_tokens ?? 0;
    const tight = await compileL1(p.ledger, { ...input, budget: requiredTokens + 15 }, caller);
    const pack = tight.work_context;
    if (pack === null) throw new Error("no packet");
    expect(pack.token_estimate).toBeLessThanOrEqual(requiredTokens + 15);
    expect(pack.omitted_chunks.length).toBeGreaterThan(0);
    expect(
      pack.omitted_chunks.every((o) => o.reason === "insufficient_budget_for_whole_chunk"),
    ).toBe(true);
    const requiredKeys = (c: typeof pack) =>
      c.selected_chunks.filter((s) => s.required).map((s) => s.key);
    expect(requiredKeys(pack)).toEqual(requiredKeys(full.work_context as typeof pack));
    expect(pack.rendered_context).toContain("Webhook marks the order paid");
    expect(pack.rendered_context).toContain(
      `Optional chunks left out for the budget: ${pack.omitted_chunks.length}.`,
    );
  });

  it("answers BudgetExceeded {required, budget} when the required facts (hard rules included) do not fit", async () => {
    p = await openFixtureProject("basic", backend);
    const full = await compileL1(p.ledger, { work: "PAY-2", goals: ["goal#checkout"] }, caller);
    const required = full.work_context?.required_tokens ?? 0;
    const error = await failure(
      compileL1(
        p.ledger,
        { work: "PAY-2", goals: ["goal#checkout"], budget: required - 1 },
        caller,
      ),
    );
    expect(error.code).toBe("BudgetExceeded");
    expect(error.details).toEqual({ required, budget: required - 1 });
  });

  it("with after_revision keeps the required facts and leaves out what did not change since", async () => {
    p = await openFixtureProject("basic", backend);
    const delta = await compileL1(
      p.ledger,
      { work: "PAY-2", goals: ["goal#checkout"], after_revision: 1 },
      caller,
    );
    const pack = delta.work_context;
    expect(delta.delta_after_revision).toBe(1);
    expect(pack?.rendered_context).toContain("Webhook marks the order paid");
    expect(pack?.selected_chunks.every((c) => c.required)).toBe(true);
    expect(pack?.omitted_chunks.length).toBeGreaterThan(0);
    expect(pack?.omitted_chunks.every((o) => o.reason === "unchanged_since_baseline")).toBe(true);
  });

  it("reports an unknown work key instead of compiling another item, and refuses bad input", async () => {
    p = await openFixtureProject("basic", backend);
    const missing = await compileL1(p.ledger, { work: "NOPE-9" }, caller);
    expect(missing).toMatchObject({
      selection_basis: "explicit_work_missing",
      work_context: null,
      completeness: { complete: false, work_item_found: false },
    });
    expect(missing.diagnostic_text).toContain("NOPE-9");
    const none = await compileL1(p.ledger, {}, caller);
    expect(none).toMatchObject({ selection_basis: "none", work_context: null });
    for (const input of [
      { work: "PAY-2", checkpoint: "c", after_revision: 1 },
      { work: "PAY-2", budget: 0 },
      { detached: true },
      { work: "PAY-2", paths: [" "] },
    ]) {
      expect((await failure(compileL1(p.ledger, input, caller))).code).toBe("InvalidInput");
    }
  });

  it("answers an incomplete packet as ContextIncomplete carrying the result with its completeness", async () => {
    p = await openFixtureProject("basic", backend);
    const error = await failure(
      p.ledger.call("awr_context_compile", { work: "NOPE", detached: true }, caller),
    );
    expect(error.code).toBe("ContextIncomplete");
    expect(error.details).toBeUndefined();
    expect(error.result).toMatchObject({
      ok: false,
      level: "L1",
      work_context: null,
      completeness: { complete: false, work_item_found: false },
      error: { code: "ContextIncomplete" },
      read_only: true,
    });
    expect(error.result?.["diagnostic_text"]).toContain("CONTEXT INCOMPLETE");
    const complete = await p.ledger.call(
      "awr_context_compile",
      { work: "PAY-2", goals: ["goal#checkout"] },
      caller,
    );
    expect(complete).toMatchObject({ ok: true, completeness: { complete: true } });
  });
});

describe.each(BACKENDS)("context bootstrap (L0) on %s", (backend) => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  it("orients on the item: identity, state, next action and every applicable hard rule, within 1000", async () => {
    p = await openFixtureProject("basic", backend);
    const l0 = await p.ledger.call("awr_context_bootstrap", { work: "PAY-2" }, caller);
    expect(l0).toMatchObject({ level: "L0", token_budget: 1000, context: { complete: true } });
    expect(l0.context.work).toMatchObject({
      external_key: "PAY-2",
      status: "ready",
      raw_status: "ready",
      blocker: null,
    });
    expect(l0.context.critical_rules.map((r) => r.external_key)).toEqual([
      "rule#no-card-logs",
      "rule#pay-tests",
    ]);
    expect(l0.rendered_context).toContain("Status: ready");
    expect(l0.rendered_context).toContain("Blocker: none");
    expect(l0.rendered_context).toContain("Next: Create the redirect endpoint");
    expect(l0.rendered_context).toContain(
      "Never log card numbers\n\nCard data must never reach logs or events.",
    );
    expect(l0.token_estimate).toBe(countTokens(l0.rendered_context));
    expect(l0.context_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("lists what it cannot establish as gaps and refuses a budget its facts exceed", async () => {
    p = await openFixtureProject("basic", backend);
    const l0 = await p.ledger.call("awr_context_bootstrap", { work: "INV-1" }, caller);
    expect(l0.context.complete).toBe(false);
    expect(l0.context.gaps.map((g) => g.code)).toEqual(
      expect.arrayContaining([
        "missing_next_action",
        "missing_phase",
        "rule_applicability_unknown",
      ]),
    );
    expect(l0.context.critical_rules.map((r) => r.external_key)).toContain("rule#pay-tests");
    const error = await failure(
      p.ledger.call("awr_context_bootstrap", { work: "PAY-2", budget: 50 }, caller),
    );
    expect(error.code).toBe("BudgetExceeded");
    expect(error.details).toEqual({ required: expect.any(Number), budget: 50 });
  });
});

describe("context for a synthetic project of 150 items", () => {
  it("keeps every active item's packet within 5000 tokens with all of its required facts", async () => {
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
          const ctx = await compileL1(ledger, { work: item.work, budget: 5000 }, caller);
          const text = ctx.work_context?.rendered_context ?? "";
          expect(ctx.work_context?.token_estimate).toBeLessThanOrEqual(5000);
          for (const fact of item.required_facts)
            expect(text, `${item.work}: ${fact}`).toContain(fact);
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
