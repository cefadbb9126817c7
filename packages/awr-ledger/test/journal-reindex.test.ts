import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MANIFEST_PATH } from "@awr/awr-ledger/sources";
import { ledgerStore } from "@awr/awr-ledger/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ledgerFailure } from "./fixtures/runtime/harness.js";
import { BACKENDS } from "./helpers/backends.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";
import { replayOf } from "./helpers/replay.js";

const caller = { client: "stdio" };

describe.each(BACKENDS)("awr_source_reindex through the request journal on %s", (backend) => {
  let p: OpenProject;
  beforeEach(async () => {
    p = await openFixtureProject("basic", backend);
  });
  afterEach(() => p.close());

  const revision = () => ledgerStore(p.ledger).currentRevision();
  const editGoals = () => {
    const file = join(p.root, "GOALS.md");
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace("Faster invoices", "Much faster invoices"),
    );
  };
  const goalTitle = async () =>
    (
      await ledgerStore(p.ledger)
        .db.selectFrom("entities")
        .select("title")
        .where("key", "=", "goal#invoices")
        .executeTakeFirstOrThrow()
    ).title;
  const reindexEvents = () =>
    ledgerStore(p.ledger)
      .db.selectFrom("events")
      .selectAll()
      .where("type", "=", "source.reindexed")
      .orderBy("seq")
      .execute();

  it("journals a reindex that changed something and replays it under the same request_id", async () => {
    editGoals();
    const first = await p.ledger.call(
      "awr_source_reindex",
      { expected_revision: 1, request_id: "ri-1" },
      caller,
    );
    expect(first).toMatchObject({
      request_id: "ri-1",
      reindexed: true,
      changed_paths: ["GOALS.md"],
      added_paths: [],
      removed_paths: [],
      project_revision: 4,
      terminal_event: { type: "source.reindexed", revision: 3 },
    });
    expect(first.replayed).toBeUndefined();
    expect(await goalTitle()).toBe("Much faster invoices");

    const op = await p.ledger.call("awr_operation_get", { request_id: "ri-1" }, caller);
    expect(op).toMatchObject({
      tool: "awr_source_reindex",
      outcome: "recorded",
      write_outcome: "committed",
      // The entry nested as the original answers it, beside our flat fields.
      operation: {
        id: first.operation?.id,
        request_id: "ri-1",
        tool: "awr_source_reindex",
        status: "finished",
        write_outcome: "committed",
      },
      receipts_may_have_more: false,
    });
    // The changed source's entities are recorded first (source.projected), then the terminal.
    expect(op.domain_receipts.map((e) => [e.event_type, e.terminal])).toEqual([
      ["source.projected", false],
      ["source.reindexed", true],
    ]);
    expect(op.result).toMatchObject({
      changed_paths: ["GOALS.md"],
      added_paths: [],
      removed_paths: [],
    });

    const replay = await p.ledger.call(
      "awr_source_reindex",
      { expected_revision: 1, request_id: "ri-1" },
      caller,
    );
    expect(replay).toEqual(replayOf(first));
    expect(await revision()).toBe(4);
    expect(await reindexEvents()).toHaveLength(2); // init's own reindex, then this one
  });

  it("runs the same way through execute, and refuses a reused request_id with other arguments", async () => {
    editGoals();
    const done = await p.ledger.execute(
      "awr_source_reindex",
      { expected_revision: 1, request_id: "ri-2" },
      caller,
    );
    expect(done).toMatchObject({ reindexed: true, project_revision: 4, request_id: "ri-2" });
    const reused = await ledgerFailure(
      p.ledger.execute("awr_source_reindex", { expected_revision: 4, request_id: "ri-2" }, caller),
    );
    expect(reused.code).toBe("SourceConflict");
    expect(reused.details).toEqual({ request_id: "ri-2" });
    expect(await revision()).toBe(4);
  });

  it("refuses a stale expected_revision without journaling, so the request_id stays usable", async () => {
    editGoals();
    const stale = await ledgerFailure(
      p.ledger.call("awr_source_reindex", { expected_revision: 0, request_id: "ri-3" }, caller),
    );
    expect(stale.code).toBe("RevisionConflict");
    expect(stale.details).toEqual({ expected: 0, actual: 1 });
    expect(await revision()).toBe(1);
    expect(await goalTitle()).toBe("Faster invoices");
    expect(
      (await ledgerFailure(p.ledger.call("awr_operation_get", { request_id: "ri-3" }, caller)))
        .code,
    ).toBe("NotFound");
    const retried = await p.ledger.call(
      "awr_source_reindex",
      { expected_revision: 1, request_id: "ri-3" },
      caller,
    );
    expect(retried.reindexed).toBe(true);
  });

  it("records a reindex that found nothing changed as finished, spending no revision and appending no event", async () => {
    const result = await p.ledger.call(
      "awr_source_reindex",
      { expected_revision: 1, request_id: "ri-4" },
      caller,
    );
    expect(result).toMatchObject({
      request_id: "ri-4",
      reindexed: false,
      changed_paths: [],
      removed_paths: [],
      project_revision: 1,
    });
    expect(result.terminal_event).toBeUndefined();
    expect(await revision()).toBe(1);
    expect(await reindexEvents()).toHaveLength(1); // init's own reindex only
    const op = await p.ledger.call("awr_operation_get", { request_id: "ri-4" }, caller);
    expect(op).toMatchObject({
      status: "finished",
      outcome: "recorded",
      write_outcome: "committed",
      started_revision: 1,
      finished_revision: 1,
      domain_receipts: [],
    });
    // Replayed as recorded, even after the sources changed: the id names that one request.
    editGoals();
    const replay = await p.ledger.call(
      "awr_source_reindex",
      { expected_revision: 1, request_id: "ri-4" },
      caller,
    );
    expect(replay).toEqual(replayOf(result));
    expect(await goalTitle()).toBe("Faster invoices");
  });

  it("lists removed and added sources in the result and in the terminal event", async () => {
    const manifestFile = join(p.root, MANIFEST_PATH);
    const manifest = readFileSync(manifestFile, "utf8");
    const withoutDecisions = manifest.replace(
      /\[\[sources\]\]\n(?:[^[\n][^\n]*\n)*?path = "DECISIONS\.md"\n(?:[^[\n][^\n]*\n?)*/,
      "",
    );
    expect(withoutDecisions).not.toContain("DECISIONS.md");
    writeFileSync(manifestFile, withoutDecisions);
    const removed = await p.ledger.call("awr_source_reindex", { expected_revision: 1 }, caller);
    expect(removed).toMatchObject({
      reindexed: true,
      changed_paths: [MANIFEST_PATH],
      added_paths: [],
      removed_paths: ["DECISIONS.md"],
    });
    expect(removed.request_id).toBeUndefined();
    expect(removed.project_revision).toBe(2);

    writeFileSync(manifestFile, manifest);
    const added = await p.ledger.call(
      "awr_source_reindex",
      { expected_revision: removed.project_revision },
      caller,
    );
    expect(added).toMatchObject({
      changed_paths: ["DECISIONS.md", MANIFEST_PATH],
      added_paths: ["DECISIONS.md"],
      removed_paths: [],
    });
    const events = await reindexEvents();
    expect(events.slice(1).map((e) => JSON.parse(e.payload) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ removed_paths: ["DECISIONS.md"], added_paths: [] }),
      expect.objectContaining({ added_paths: ["DECISIONS.md"], removed_paths: [] }),
    ]);
  });

  it("refuses a malformed source before journaling; the same request_id works once it is fixed", async () => {
    const file = join(p.root, "work-ledger.yaml");
    const good = readFileSync(file, "utf8");
    appendFileSync(file, "  - id: BAD\n    title: [oops\n");
    const bad = await ledgerFailure(
      p.ledger.call("awr_source_reindex", { expected_revision: 1, request_id: "ri-5" }, caller),
    );
    expect(bad.code).toBe("InvalidInput");
    expect(bad.message).toMatch(/work-ledger\.yaml:\d+/);
    expect(await revision()).toBe(1);
    writeFileSync(file, good.replace("Invoice PDF", "Invoice PDF v2"));
    const fixed = await p.ledger.call(
      "awr_source_reindex",
      { expected_revision: 1, request_id: "ri-5" },
      caller,
    );
    expect(fixed).toMatchObject({ reindexed: true, changed_paths: ["work-ledger.yaml"] });
  });

  it("refuses bad input: a missing expected_revision or an unknown argument", async () => {
    const missing = await ledgerFailure(
      p.ledger.execute("awr_source_reindex", { request_id: "x" }, caller),
    );
    expect(missing.code).toBe("InvalidInput");
    expect(missing.details).toEqual({
      issues: [{ path: "expected_revision", message: "is required" }],
    });
    const unknown = await ledgerFailure(
      p.ledger.execute("awr_source_reindex", { expected_revision: 1, paths: ["a"] }, caller),
    );
    expect(unknown.code).toBe("InvalidInput");
    const forged = await ledgerFailure(
      p.ledger.call(
        "awr_event_append",
        { event_type: "source.reindexed", summary: "forged", expected_revision: 1 },
        caller,
      ),
    );
    expect(forged.code).toBe("InvalidInput");
    expect(await revision()).toBe(1);
  });

  it("rejects with the signal's reason when cancelled before it is journaled", async () => {
    editGoals();
    const controller = new AbortController();
    const reason = new Error("caller gave up");
    controller.abort(reason);
    await expect(
      p.ledger.call("awr_source_reindex", { expected_revision: 1, request_id: "ri-6" }, caller, {
        signal: controller.signal,
      }),
    ).rejects.toBe(reason);
    expect(await revision()).toBe(1);
    expect(
      (await ledgerFailure(p.ledger.call("awr_operation_get", { request_id: "ri-6" }, caller)))
        .code,
    ).toBe("NotFound");
  });

  it("keeps the CLI's refreshing reads a local, unjournaled reindex", async () => {
    editGoals();
    const status = await p.ledger.call("awr_project_status", { view: "full" }, caller, {
      refresh: true,
    });
    expect(status.project_revision).toBe(2);
    const events = await reindexEvents();
    expect(events.map((e) => [Number(e.revision), e.operation_id])).toEqual([
      [1, null],
      [2, null],
    ]);
    expect((await p.ledger.call("awr_operation_list", {}, caller)).operations).toEqual([]);
  });
});
