import { isLedgerError, type LedgerError } from "@awr/awr-ledger";
import { ledgerStore } from "@awr/awr-ledger/testing";
import { afterEach, describe, expect, it } from "vitest";
import { BACKENDS } from "./helpers/backends.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

const caller = { client: "stdio" };

describe.each(BACKENDS)("read models on %s", (backend) => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  it("project status counts work by status and names the next action and organisation gaps", async () => {
    p = await openFixtureProject("basic", backend);
    const status = await p.ledger.call("awr_project_status", { view: "full" }, caller);
    expect(status.project_id).toBe(p.ledger.projectId);
    expect(status.project_revision).toBe(1);
    expect(status.counts).toEqual({ completed: 1, ready: 2, planned: 1, unknown: 1 });
    expect(status.total).toBe(5);
    expect(status.ready_count).toBe(1);
    expect(status.dependency_blocked_count).toBe(1);
    // Open but not selectable: INV-1 (waits for PAY-2), DOCS-1 (planned), OLD-1 (unknown).
    expect(status.blocked_count).toBe(3);
    expect(status.current).toEqual([]);
    expect(status.current_total).toBe(0);
    expect(status.next_action).toBe("Create the redirect endpoint");
    expect(status.suggested_work).toMatchObject({
      external_key: "PAY-2",
      title: "Hosted payment page",
      status: "ready",
      raw_status: "ready",
      summary: "Redirect to the provider's hosted page.",
      priority: "high",
      milestone: "M1",
      next_action: "Create the redirect endpoint",
      revision: 1,
      source_revision: 1,
      freshness: "fresh",
    });
    const gaps = (status.organisation_gaps ?? []).map((g) => `${g.gap}:${g.key}`);
    expect(gaps).toEqual(
      expect.arrayContaining([
        "work_without_goal:DOCS-1",
        "unknown_status:OLD-1",
        "goal_without_work:goal#invoice-templates",
      ]),
    );
  });

  it("work ready lists ready, unclaimed items whose required dependencies are completed", async () => {
    p = await openFixtureProject("basic", backend);
    const ready = await p.ledger.call("awr_work_ready", { limit: 10 }, caller);
    expect(ready.ready.map((i) => i.external_key)).toEqual(["PAY-2"]);
    expect(ready.ready[0]).toMatchObject({
      ready: true,
      active_claims: [],
      diagnostics: [
        {
          code: "optional_dependency_incomplete",
          work_item_key: "DOCS-1",
          detail: "optional dependency DOCS-1 is planned",
        },
      ],
    });
    expect(ready).toMatchObject({ ready_total: 1, truncated: false, blocked_total: 3 });
    expect(ready.diagnostic_counts).toEqual({
      required_dependency_incomplete: 1,
      status_not_ready: 2,
    });
    expect(ready.blocked_sample.map((b) => [b.external_key, b.diagnostics[0]?.code])).toEqual([
      ["INV-1", "required_dependency_incomplete"],
      ["DOCS-1", "status_not_ready"],
      ["OLD-1", "status_not_ready"],
    ]);
  });

  it("work ready leaves out an item with an active claim and lists the claim", async () => {
    p = await openFixtureProject("basic", backend);
    await ledgerStore(p.ledger)
      .db.insertInto("sessions")
      .values({
        id: "s1",
        client: "stdio",
        conversation: "c",
        work: "PAY-2",
        agent: "agent-1",
        provider: "p",
        model: "m",
        status: "active",
        predecessor: null,
        successor: null,
        summary: null,
        last_checkpoint: null,
        start_revision: 1,
        end_revision: null,
        started_at: "x",
        ended_at: null,
      })
      .execute();
    await ledgerStore(p.ledger)
      .db.insertInto("claims")
      .values({
        id: "c1",
        work: "PAY-2",
        session: "s1",
        client: "stdio",
        status: "active",
        ttl_ms: null,
        expires_at: null,
        acquired_revision: 1,
        ended_revision: null,
        acquired_at: "x",
        ended_at: null,
      })
      .execute();
    const ready = await p.ledger.call("awr_work_ready", {}, caller);
    expect(ready.ready).toEqual([]);
    const claimed = ready.blocked_sample.find((b) => b.external_key === "PAY-2");
    expect(claimed?.active_claims).toEqual([
      { id: "c1", agent_id: "agent-1", session_id: "s1", expires_at: null },
    ]);
    expect(claimed?.diagnostics.map((d) => d.code)).toEqual(["active_claim"]);
  });

  it("work get returns acceptance, dependencies with states, decisions and evidence", async () => {
    p = await openFixtureProject("basic", backend);
    const got = await p.ledger.call("awr_work_get", { work: "PAY-2" }, caller);
    expect(got.work).toMatchObject({
      work: "PAY-2",
      status: "ready",
      goal: "goal#checkout",
      paths: ["src/payments/hosted.ts"],
    });
    expect(got.work.source).toEqual({ path: "work-ledger.yaml", line_start: 16, line_end: 35 });
    expect(got.acceptance.map((a) => [a.id, a.level])).toEqual([
      ["ac-1", "locally_verified"],
      ["ac-webhook", "real_environment_validated"],
    ]);
    expect(got.dependencies).toEqual([
      {
        work: "DOCS-1",
        title: "Write payment docs",
        status: "planned",
        required: false,
        satisfied: false,
      },
      {
        work: "PAY-1",
        title: "Payment provider account",
        status: "completed",
        required: true,
        satisfied: true,
      },
    ]);
    expect(got.dependents).toEqual([{ work: "INV-1", required: true }]);
    expect(got.decisions.map((d) => d.key)).toEqual(["decision#hosted-page"]);
    expect(got.goal?.title).toBe("Checkout works end to end");
    expect(got.milestone?.key).toBe("M1");
    expect(got.evidence).toEqual({ source: [], recorded: [] });
  });

  it("work get of an unknown item is NotFound, and bad input is InvalidInput", async () => {
    p = await openFixtureProject("basic", backend);
    const error = (await p.ledger
      .call("awr_work_get", { work: "NOPE-9" }, caller)
      .catch((e: unknown) => e)) as LedgerError;
    expect(error.code).toBe("NotFound");
    expect(error.message).toContain("NOPE-9");
    await expect(p.ledger.call("awr_work_get", { work: "" }, caller)).rejects.toMatchObject({
      code: "InvalidInput",
    });
    await expect(p.ledger.call("awr_work_ready", { limit: 0 }, caller)).rejects.toMatchObject({
      code: "InvalidInput",
    });
  });

  it("search finds work, rules and decisions ranked, with snippets, but never event payloads", async () => {
    p = await openFixtureProject("basic", backend);
    const { appendEvent, spendRevision } = await import("@awr/awr-ledger/testing");
    await ledgerStore(p.ledger).write(async (tx) => {
      const revision = await spendRevision(tx);
      await appendEvent(tx, {
        type: "note.added",
        revision,
        summary: "talked about webhook retries",
        payload: { secret: "zebrafish" },
      });
    });
    const hits = await p.ledger.call("awr_search", { text: "hosted page" }, caller);
    expect(hits.hits[0]).toMatchObject({ kind: "work_item", external_key: "PAY-2" });
    expect(hits.hits.map((h) => h.external_key)).toContain("decision#hosted-page");
    expect(hits.hits[0]?.snippet).toMatch(/\[hosted\]|\[page\]/i);
    const card = await p.ledger.call("awr_search", { text: "card" }, caller);
    expect(card.hits.map((h) => h.kind)).toEqual(expect.arrayContaining(["rule", "decision"]));
    const events = await p.ledger.call("awr_search", { text: "webhook retries" }, caller);
    expect(events.hits.map((h) => h.kind)).toContain("event");
    expect((await p.ledger.call("awr_search", { text: "zebrafish" }, caller)).hits).toEqual([]);
    const bad = await p.ledger
      .call("awr_search", { text: "  ?! " }, caller)
      .catch((e: unknown) => e);
    expect(isLedgerError(bad, "InvalidInput")).toBe(true);
  });

  it("reads reject with the abort reason unchanged", async () => {
    p = await openFixtureProject("basic", backend);
    const controller = new AbortController();
    const reason = new Error("user hit Ctrl-C");
    controller.abort(reason);
    await expect(
      p.ledger.call("awr_project_status", { view: "full" }, caller, { signal: controller.signal }),
    ).rejects.toBe(reason);
  });
});
