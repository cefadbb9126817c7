import { appendFileSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isLedgerError, type LedgerError } from "@awr/awr-ledger";
import { ledgerStore } from "@awr/awr-ledger/testing";
import { afterEach, describe, expect, it } from "vitest";
import { BACKENDS } from "./helpers/backends.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

const caller = { client: "stdio" };

describe.each(BACKENDS)("indexing and reindexing on %s", (backend) => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  async function entityIds(project: OpenProject) {
    const rows = await ledgerStore(project.ledger)
      .db.selectFrom("entities")
      .select(["key", "id", "title"])
      .orderBy("key")
      .execute();
    return new Map(rows.map((r) => [r.key, r]));
  }

  it("skips unchanged sources and spends no revision when nothing changed", async () => {
    p = await openFixtureProject("basic", backend);
    const result = await p.ledger.call("awr_source_reindex", { expected_revision: 1 }, caller);
    expect(result.reindexed).toBe(false);
    expect(result.project_revision).toBe(1);
    expect(result.sources.every((s) => s.state === "unchanged")).toBe(true);
  });

  it("reindexes only the changed source, keeps entity ids stable, and changes the projection in one revision", async () => {
    p = await openFixtureProject("basic", backend);
    const before = await entityIds(p);
    const file = join(p.root, "GOALS.md");
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace("Faster invoices", "Much faster invoices"),
    );
    const result = await p.ledger.call(
      "awr_source_reindex",
      { expected_revision: 1, request_id: "reindex-goals" },
      caller,
    );
    // The journal spends revision 2 (started), 3 (the reindex itself) and 4 (finished).
    expect(result).toMatchObject({
      reindexed: true,
      project_revision: 4,
      changed_paths: ["GOALS.md"],
      terminal_event: { type: "source.reindexed", revision: 3 },
    });
    expect(result.sources.filter((s) => s.state === "indexed").map((s) => s.path)).toEqual([
      "GOALS.md",
    ]);
    const after = await entityIds(p);
    expect(after.get("goal#invoices")?.title).toBe("Much faster invoices");
    for (const [key, row] of before) expect(after.get(key)?.id).toBe(row.id);
  });

  it("explains a write whose own refresh of edited sources moved the revision it was sent with", async () => {
    p = await openFixtureProject("basic", backend);
    const file = join(p.root, "GOALS.md");
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace("Faster invoices", "Much faster invoices"),
    );
    const error = await p.ledger
      .call(
        "awr_event_append",
        { event_type: "note.added", summary: "after an edit", expected_revision: 1 },
        caller,
      )
      .then(
        () => undefined,
        (e: unknown) => e as LedgerError,
      );
    expect(error?.code).toBe("RevisionConflict");
    expect(error?.details).toEqual({ expected: 1, actual: 2, sources_reindexed: true });
    expect(error?.message).toContain("reindexed them first");
    // The refresh is all that happened: the retry with the new revision is written.
    const retried = await p.ledger.call(
      "awr_event_append",
      { event_type: "note.added", summary: "after an edit", expected_revision: 2 },
      caller,
    );
    expect(retried.project_revision).toBe(3);
  });

  it("refuses a reindex whose expected_revision is stale, changing nothing", async () => {
    p = await openFixtureProject("basic", backend);
    appendFileSync(join(p.root, "PLAN.md"), "\n## Phase 3 {#phase-3}\n");
    const error = (await p.ledger
      .call("awr_source_reindex", { expected_revision: 7 }, caller)
      .catch((e: unknown) => e)) as LedgerError;
    expect(error.code).toBe("RevisionConflict");
    expect(error.details).toEqual({ expected: 7, actual: 1 });
    expect(await ledgerStore(p.ledger).currentRevision()).toBe(1);
  });

  it("answers SourceStale with the changed paths after an edit, changing nothing", async () => {
    p = await openFixtureProject("basic", backend);
    await expect(
      p.ledger.call("awr_project_status", { view: "full" }, caller),
    ).resolves.toMatchObject({
      project_revision: 1,
    });
    appendFileSync(join(p.root, "RULES.md"), "\n## New rule {#new severity=hard}\n");
    const error = (await p.ledger
      .call("awr_work_ready", {}, caller)
      .catch((e: unknown) => e)) as LedgerError;
    expect(isLedgerError(error, "SourceStale")).toBe(true);
    expect(error.details).toEqual({
      changed_paths: ["RULES.md"],
      project_revision: 1,
      next: { tool: "awr_source_reindex", arguments: { expected_revision: 1 } },
      cli: "awr source reindex --expected-revision 1",
    });
    expect(error.message).toContain("awr_source_reindex (expected_revision 1)");
    expect(await ledgerStore(p.ledger).currentRevision()).toBe(1);
    const rules = await ledgerStore(p.ledger)
      .db.selectFrom("entities")
      .select("key")
      .where("kind", "=", "rule")
      .execute();
    expect(rules).toHaveLength(5);
  });

  it("treats a touched but identical file as fresh", async () => {
    p = await openFixtureProject("basic", backend);
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(p.root, "PLAN.md"), future, future);
    await expect(
      p.ledger.call("awr_project_status", { view: "full" }, caller),
    ).resolves.toMatchObject({
      project_revision: 1,
    });
  });

  it("reindexes first when a read asks for refresh (the CLI's reads)", async () => {
    p = await openFixtureProject("basic", backend);
    appendFileSync(join(p.root, "PLAN.md"), "\n## Phase 3 {#phase-3}\n");
    const status = await p.ledger.call("awr_project_status", { view: "full" }, caller, {
      refresh: true,
    });
    expect(status.project_revision).toBe(2);
    expect(status.entity_counts?.["plan"]).toBe(4);
  });

  it("never half-indexes: a failure in the middle of indexing leaves the previous projection intact", async () => {
    p = await openFixtureProject("basic", backend);
    const before = await entityIds(p);
    // DECISIONS.md is indexed after the work ledger; its new key collides with a goal key. The
    // clash is refused before anything is written (and the write transaction guards it again).
    const ledgerFile = join(p.root, "work-ledger.yaml");
    writeFileSync(
      ledgerFile,
      readFileSync(ledgerFile, "utf8").replace("Invoice PDF", "Invoice PDF v2"),
    );
    appendFileSync(join(p.root, "DECISIONS.md"), "\n## Clash {#goal#checkout status=accepted}\n");
    const error = (await p.ledger
      .call("awr_source_reindex", { expected_revision: 1 }, caller)
      .catch((e: unknown) => e)) as LedgerError;
    expect(error.code).toBe("InvalidInput");
    expect(error.message).toMatch(
      /DECISIONS\.md:\d+: key goal#checkout is already defined at GOALS\.md:3/,
    );
    expect(await entityIds(p)).toEqual(before);
    expect(await ledgerStore(p.ledger).currentRevision()).toBe(1);
    const sources = await ledgerStore(p.ledger)
      .db.selectFrom("sources")
      .select(["path", "indexed_revision"])
      .execute();
    expect(sources.every((s) => Number(s.indexed_revision) === 1)).toBe(true);
  });

  it("refuses malformed YAML with file and line, keeping the previous projection", async () => {
    p = await openFixtureProject("basic", backend);
    appendFileSync(join(p.root, "work-ledger.yaml"), "  - id: BAD\n    title: [oops\n");
    const error = (await p.ledger
      .call("awr_source_reindex", { expected_revision: 1 }, caller)
      .catch((e: unknown) => e)) as LedgerError;
    expect(error.code).toBe("InvalidInput");
    expect(error.message).toMatch(/work-ledger\.yaml:\d+/);
    expect((error.details?.["issues"] as unknown[] | undefined)?.length ?? 0).toBeGreaterThan(0);
    expect(await ledgerStore(p.ledger).currentRevision()).toBe(1);
  });
});
