import { isLedgerError, type LedgerError } from "@awr/awr-ledger";
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
    const status = await p.ledger.call("awr_project_status", {}, caller);
    expect(status.project_id).toBe(p.ledger.projectId);
    expect(status.project_revision).toBe(1);
    expect(status.counts_by_status).toMatchObject({
      completed: 1,
      ready: 2,
      planned: 1,
      unknown: 1,
      blocked: 0,
    });
    expect(status.total_work).toBe(5);
    expect(status.ready_count).toBe(1);
    expect(status.dependency_blocked_count).toBe(1);
    expect(status.next_action).toEqual({
      work: "PAY-2",
      title: "Hosted payment page",
      action: "Create the redirect endpoint",
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
    expect(ready.items.map((i) => i.work)).toEqual(["PAY-2"]);
    expect(ready.items[0]?.diagnostics).toEqual(["optional dependency DOCS-1 is planned"]);
    expect(ready.active_claims).toEqual([]);
  });

  it("work ready leaves out an item with an active claim and lists the claim", async () => {
    p = await openFixtureProject("basic", backend);
    await p.ledger.store.db
      .insertInto("sessions")
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
    await p.ledger.store.db
      .insertInto("claims")
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
    expect(ready.items).toEqual([]);
    expect(ready.active_claims).toEqual([
      { id: "c1", agent_id: "agent-1", session_id: "s1", expires_at: null, work: "PAY-2" },
    ]);
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
    const { appendEvent, spendRevision } = await import("@awr/awr-ledger");
    await p.ledger.store.write(async (tx) => {
      const revision = await spendRevision(tx);
      await appendEvent(tx, {
        type: "note.added",
        revision,
        summary: "talked about webhook retries",
        payload: { secret: "zebrafish" },
      });
    });
    const hits = await p.ledger.call("awr_search", { text: "hosted page" }, caller);
    expect(hits.results[0]).toMatchObject({ kind: "work", ref: "PAY-2" });
    expect(hits.results.map((h) => h.ref)).toContain("decision#hosted-page");
    expect(hits.results[0]?.snippet).toMatch(/\[hosted\]|\[page\]/i);
    const card = await p.ledger.call("awr_search", { text: "card" }, caller);
    expect(card.results.map((h) => h.kind)).toEqual(expect.arrayContaining(["rule", "decision"]));
    const events = await p.ledger.call("awr_search", { text: "webhook retries" }, caller);
    expect(events.results.map((h) => h.kind)).toContain("event");
    expect((await p.ledger.call("awr_search", { text: "zebrafish" }, caller)).results).toEqual([]);
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
      p.ledger.call("awr_project_status", {}, caller, { signal: controller.signal }),
    ).rejects.toBe(reason);
  });
});
