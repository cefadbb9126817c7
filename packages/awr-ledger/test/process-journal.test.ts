import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ledgerStore } from "@awr/awr-ledger/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CALLER, harnessPerCase, ledgerFailure } from "./fixtures/runtime/harness.js";
import { runWriteChild } from "./fixtures/runtime/run-write-child.js";
import { BACKENDS, type TestDatabase } from "./helpers/backends.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";
import { replayOf, replayOfRecovered } from "./helpers/replay.js";

describe.each(BACKENDS)("journal outcomes across a killed process on %s", (backend) => {
  const h = harnessPerCase(backend, []);

  const notes = async () =>
    (
      await h.database.db
        .selectFrom("events")
        .select("id")
        .where("type", "=", "note.crash")
        .execute()
    ).length;
  const sameRequest = () =>
    h.runtime.call(
      "awr_event_append",
      { event_type: "note.crash", summary: "crash", expected_revision: 0, request_id: "crash-1" },
      CALLER,
    );

  it("settles a write killed after mcp.operation_started as not committed", async () => {
    const exit = await runWriteChild(
      h,
      { mode: "once", requestId: "crash-1", tag: "crash" },
      "after_begin",
    );
    expect(exit.signal).toBe("SIGKILL");
    const op = await h.runtime.call("awr_operation_get", { request_id: "crash-1" }, CALLER);
    expect(op).toMatchObject({ outcome: "unknown", write_outcome: "unknown", domain_receipts: [] });
    const retry = await ledgerFailure(sameRequest());
    expect(retry.code).toBe("MutationConflict");
    expect(retry.details).toMatchObject({ write_outcome: "unknown" });
    const recovered = await h.runtime.call(
      "awr_operation_recover",
      { request_id: "crash-1", expected_revision: await h.revision() },
      CALLER,
    );
    expect(recovered).toMatchObject({ write_outcome: "not_committed", recovered: true });
    expect(await notes()).toBe(0);
    const replay = await ledgerFailure(sameRequest());
    expect(replay.details).toMatchObject({ write_outcome: "not_committed", replayed: true });
    expect(await notes()).toBe(0);
  });

  it("settles a write killed after its domain commit as committed, with its effect exactly once", async () => {
    const exit = await runWriteChild(
      h,
      { mode: "once", requestId: "crash-1", tag: "crash" },
      "after_domain",
    );
    expect(exit.signal).toBe("SIGKILL");
    const op = await h.runtime.call("awr_operation_get", { request_id: "crash-1" }, CALLER);
    expect(op.outcome).toBe("unknown");
    expect(op.domain_receipts.map((e) => [e.event_type, e.terminal])).toEqual([
      ["note.crash", true],
    ]);
    const recovered = await h.runtime.call(
      "awr_operation_recover",
      { request_id: "crash-1", expected_revision: await h.revision() },
      CALLER,
    );
    expect(recovered).toMatchObject({ write_outcome: "committed", recovered: true });
    expect(recovered.result).toMatchObject({
      event: { event_type: "note.crash", summary: "crash" },
      recovered: true,
    });
    expect(await notes()).toBe(1);
    const replay = await sameRequest();
    expect(replay).toEqual(replayOfRecovered(recovered.result, "crash-1"));
    expect(await notes()).toBe(1);
    expect(
      (await h.runtime.call("awr_operation_get", { request_id: "crash-1" }, CALLER)).outcome,
    ).toBe("recorded");
  });

  it("finishes normally without the fault switch", async () => {
    const exit = await runWriteChild(h, { mode: "once", requestId: "crash-1", tag: "crash" });
    expect(exit).toMatchObject({ code: 0, signal: null });
    const result = JSON.parse(exit.stdout) as { project_revision: number };
    expect(result.project_revision).toBe(3);
    expect(await sameRequest()).toEqual(replayOf(result));
  });

  it("loses no update and spends no revision twice when two processes write to one project", async () => {
    const count = 8;
    const [a, b] = await Promise.all([
      runWriteChild(h, { mode: "loop", count, tag: "A" }),
      runWriteChild(h, { mode: "loop", count, tag: "B" }),
    ]);
    expect([a.code, a.stderr]).toEqual([0, ""]);
    expect([b.code, b.stderr]).toEqual([0, ""]);
    const events = await h.database.db
      .selectFrom("events")
      .select(["type", "revision", "summary"])
      .orderBy("seq")
      .execute();
    const counters = events
      .filter((e) => e.type === "note.counter")
      .map((e) => e.summary)
      .sort();
    expect(counters).toEqual(
      [
        ...Array.from({ length: count }, (_, i) => `A-${i}`),
        ...Array.from({ length: count }, (_, i) => `B-${i}`),
      ].sort(),
    );
    // Every commit here appends one event: the revisions are exactly 1..n, none repeated.
    expect(events.map((e) => Number(e.revision))).toEqual(
      Array.from({ length: events.length }, (_, i) => i + 1),
    );
    expect(await h.revision()).toBe(6 * count);
  });
});

describe.each(BACKENDS)("awr_source_reindex across a killed process on %s", (backend) => {
  let p: OpenProject;
  let target: { database: TestDatabase; projectId: string };
  beforeEach(async () => {
    p = await openFixtureProject("basic", backend);
    target = { database: p.db, projectId: p.ledger.projectId };
    const goals = join(p.root, "GOALS.md");
    writeFileSync(
      goals,
      readFileSync(goals, "utf8").replace("Faster invoices", "Much faster invoices"),
    );
  });
  afterEach(() => p.close());

  const reindexChild = (fault: string) =>
    runWriteChild(
      target,
      { mode: "reindex", root: p.root, requestId: "reindex-1", tag: "-" },
      fault,
    );
  const goalTitle = async () =>
    (
      await p.db.db
        .selectFrom("entities")
        .select("title")
        .where("key", "=", "goal#invoices")
        .executeTakeFirstOrThrow()
    ).title;

  it("settles a reindex killed after its domain commit as committed, and replays it", async () => {
    const exit = await reindexChild("after_domain");
    expect(exit.signal).toBe("SIGKILL");
    const op = await p.ledger.call("awr_operation_get", { request_id: "reindex-1" }, CALLER);
    expect(op.outcome).toBe("unknown");
    // The changed source's entity changes (source.projected), then the terminal receipt.
    expect(op.domain_receipts.map((e) => [e.event_type, e.terminal])).toEqual([
      ["source.projected", false],
      ["source.reindexed", true],
    ]);
    expect(await goalTitle()).toBe("Much faster invoices");
    const recovered = await p.ledger.call(
      "awr_operation_recover",
      { request_id: "reindex-1", expected_revision: await ledgerStore(p.ledger).currentRevision() },
      CALLER,
    );
    expect(recovered).toMatchObject({ write_outcome: "committed", recovered: true });
    expect(recovered.result).toMatchObject({
      reindexed: true,
      changed_paths: ["GOALS.md"],
      terminal_event: { type: "source.reindexed" },
    });
    const replay = await p.ledger.call(
      "awr_source_reindex",
      { expected_revision: 1, request_id: "reindex-1" },
      CALLER,
    );
    expect(replay).toEqual({
      ...replayOfRecovered(recovered.result, "reindex-1"),
      source_refresh_performed: true,
      source_write_performed: false,
    });
  });

  it("settles a reindex killed after mcp.operation_started as not committed; a new request reindexes", async () => {
    const exit = await reindexChild("after_begin");
    expect(exit.signal).toBe("SIGKILL");
    expect(await goalTitle()).toBe("Faster invoices");
    const recovered = await p.ledger.call(
      "awr_operation_recover",
      { request_id: "reindex-1", expected_revision: await ledgerStore(p.ledger).currentRevision() },
      CALLER,
    );
    expect(recovered).toMatchObject({ write_outcome: "not_committed", recovered: true });
    const again = await p.ledger.call(
      "awr_source_reindex",
      { expected_revision: await ledgerStore(p.ledger).currentRevision(), request_id: "reindex-2" },
      CALLER,
    );
    expect(again).toMatchObject({ reindexed: true, changed_paths: ["GOALS.md"] });
    expect(await goalTitle()).toBe("Much faster invoices");
  });
});
