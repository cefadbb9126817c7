import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { initProject, type Ledger, openLedger } from "@awr/awr-ledger";
import { ledgerStore } from "@awr/awr-ledger/testing";
import { afterEach, describe, expect, it } from "vitest";
import { BACKENDS, freshDatabase, type TestDatabase } from "./helpers/backends.js";
import { copyFixture } from "./helpers/projects.js";

const caller = { client: "stdio" };

// A project in the original AWR's layout (test/fixtures/original-layout): its manifest as the
// original writes it, all-Chinese GOALS/PLAN/RULES, an ADR directory with front matter, and a
// ledger with `current:`, extra item fields and the original's field spellings.
describe.each(BACKENDS)("a project in the original AWR's layout (%s)", (backend) => {
  let fixture: { root: string; remove(): void } | undefined;
  let db: TestDatabase | undefined;
  let ledger: Ledger | undefined;
  afterEach(async () => {
    await ledger?.close();
    await db?.close();
    fixture?.remove();
    ledger = db = fixture = undefined;
  });

  async function open(): Promise<{ root: string; ledger: Ledger }> {
    fixture = copyFixture("original-layout");
    db = await freshDatabase(backend);
    const init = await initProject({ root: fixture.root, accept: true, database: db.db });
    expect(init.issues.filter((i) => i.severity === "error")).toEqual([]);
    ledger = await openLedger({ root: fixture.root, database: db.db });
    return { root: fixture.root, ledger };
  }

  it("initialises with its own manifest and indexes every source completely", async () => {
    const { ledger } = await open();
    const status = await ledger.call("awr_project_status", { view: "full" }, caller);
    expect(status.entity_counts).toEqual({
      // Every heading is an entity, each file's lone first heading included, as in the original.
      goal: 6,
      plan: 3,
      rule: 4,
      work: 3,
      milestone: 2,
      decision: 3,
    });
    expect(status.counts).toMatchObject({ completed: 1, in_progress: 1, planned: 1 });
    expect(ledger.manifest.sources.map((s) => s.domain)).toEqual([
      "goal",
      "plan",
      "rules",
      "ledger",
      "decisions",
    ]);
  });

  it("keys all-Chinese headings by their own characters, a repeat with -2", async () => {
    const { ledger } = await open();
    const keys = (
      await ledgerStore(ledger)
        .db.selectFrom("entities")
        .select("key")
        .where("kind", "=", "goal")
        .orderBy("ordinal")
        .execute()
    ).map((r) => r.key);
    expect(keys).toEqual([
      "goal#茶园巡检目标",
      "goal#地块巡检",
      "goal#采摘安排",
      "goal#注意事项",
      "goal#注意事项-2",
      "goal#成功条件全部复核",
    ]);
    const rule = await ledgerStore(ledger)
      .db.selectFrom("entities")
      .selectAll()
      .where("key", "=", "rule#pesticide")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(rule.attributes)).toMatchObject({
      severity: "hard",
      scope: "path",
      value: "records/pesticide/**",
    });
    const truth = await ledgerStore(ledger)
      .db.selectFrom("entities")
      .select("attributes")
      .where("key", "=", "rule#truth")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(truth.attributes)).toMatchObject({ scope: "project", value: "*" });
  });

  it("reads one decision per ADR file: front matter, header fields, Chinese statuses", async () => {
    const { ledger } = await open();
    const rows = await ledgerStore(ledger)
      .db.selectFrom("entities")
      .selectAll()
      .where("kind", "=", "decision")
      .orderBy("key")
      .execute();
    expect(rows.map((r) => [r.key, r.title, r.status, r.raw_status])).toEqual([
      ["ADR-0002", "保留纸质备份", "accepted", "已采纳"],
      [
        "docs/decisions/ADR-0001-plot-numbering.md",
        "ADR-0001：地块编号采用片区加序号",
        "accepted",
        null,
      ],
      [
        "docs/decisions/sub/RFC-0003-drone-survey.md",
        "RFC-0003: Drone survey of the east slope",
        "proposed",
        null,
      ],
    ]);
    const first = rows[1];
    expect(first?.body).toContain("地块编号写作片区字母加两位序号");
    expect(first?.body).toContain("更容易记住短编号");
    expect(first?.body).not.toContain("affected_keys");
    expect(JSON.parse(first?.attributes ?? "{}")).toMatchObject({
      affected_keys: ["TG-1", "TG-2"],
      date: "2026-03-01",
    });
    const work = await ledger.call("awr_work_get", { work: "TG-2" }, caller);
    expect(work.decisions.map((d) => d.key)).toContain("docs/decisions/ADR-0001-plot-numbering.md");
  });

  it("returns every work item with its extra fields, evidence references and dependencies", async () => {
    const { ledger } = await open();
    const got = await ledger.call("awr_work_get", { work: "TG-1" }, caller);
    expect(got.work).toMatchObject({
      kind: "preparation",
      required: true,
      paths: ["records/plots.csv"],
      evidence_level: "locally_verified",
      extra: {
        source_sections: [1, 2],
        verification: { minimum: "抽查三个片区的名单。", evidence_level: "locally_verified" },
      },
    });
    expect(got.evidence.source).toEqual([
      expect.objectContaining({
        locator: "records/plots-review.md",
        evidence_type: "source_reference",
        level: "unknown",
      }),
    ]);
    const second = await ledger.call("awr_work_get", { work: "TG-2" }, caller);
    expect(second.dependencies.map((d) => [d.work, d.required])).toEqual([
      ["TG-1", true],
      ["TG-9", false],
    ]);
    expect(second.evidence.source[0]).toMatchObject({
      locator: "records/training-sign-in.md",
      summary: "培训签到表",
    });
    expect(second.milestone).toMatchObject({ key: "TG-M1", title: "上线巡检表" });
  });

  it("shows the ledger's current: block in status as the ledger's own note", async () => {
    const { ledger } = await open();
    const status = await ledger.call("awr_project_status", { view: "full" }, caller);
    expect(status.ledger_notes).toEqual([
      expect.objectContaining({
        source: "ledger/work-ledger.yaml",
        origin: "ledger_note",
        current: expect.objectContaining({ work_item: "TG-2", milestone: "TG-M1" }),
      }),
    ]);
    expect(status.ledger_notes[0]?.label).toMatch(/does not compute/);
  });

  it("shows a current: block edited and reindexed in the next status", async () => {
    const { root, ledger } = await open();
    expect(
      (await ledger.call("awr_project_status", { view: "full" }, caller)).ledger_notes[0]?.current,
    ).toMatchObject({
      work_item: "TG-2",
    });
    const path = join(root, "ledger", "work-ledger.yaml");
    writeFileSync(
      path,
      readFileSync(path, "utf8").replace("  work_item: TG-2", "  work_item: TG-3"),
    );
    await ledger.call(
      "awr_source_reindex",
      { expected_revision: await ledgerStore(ledger).currentRevision() },
      caller,
    );
    const status = await ledger.call("awr_project_status", { view: "full" }, caller);
    expect(status.ledger_notes[0]?.current).toMatchObject({
      work_item: "TG-3",
      milestone: "TG-M1",
    });
  });

  it("finds a CJK word from the middle of a title, next actions, and ids first", async () => {
    const { ledger } = await open();
    const middle = await ledger.call("awr_search", { text: "上线" }, caller);
    expect(middle.hits.map((h) => h.external_key)).toContain("TG-2");
    const japanese = await ledger.call("awr_search", { text: "撮影" }, caller);
    expect(japanese.hits.map((h) => h.external_key)).toContain("TG-3");
    const korean = await ledger.call("awr_search", { text: "촬영" }, caller);
    expect(korean.hits.map((h) => h.external_key)).toEqual(["TG-3"]);
    const next = await ledger.call("awr_search", { text: "信号盲区" }, caller);
    expect(next.hits[0]?.external_key).toBe("TG-2");
    const byId = await ledger.call("awr_search", { text: "TG-2" }, caller);
    expect(byId.hits[0]).toMatchObject({ external_key: "TG-2", kind: "work_item" });
    const adr = await ledger.call("awr_search", { text: "ADR-0001" }, caller);
    expect(adr.hits[0]?.external_key).toBe("docs/decisions/ADR-0001-plot-numbering.md");
    const filtered = await ledger.call("awr_search", { text: "巡检", kind: "rule" }, caller);
    expect(filtered.hits.length).toBeGreaterThan(0);
    expect(new Set(filtered.hits.map((h) => h.kind))).toEqual(new Set(["rule"]));
    const listed = await ledger.call("awr_search", { kind: "plan" }, caller);
    expect(listed.hits.map((h) => h.external_key).sort()).toEqual([
      "TG-M0",
      "TG-M1",
      "plan#实施计划",
      "plan#第一阶段",
      "plan#第二阶段",
    ]);
    const done = await ledger.call("awr_search", { kind: "work", status: "completed" }, caller);
    expect(done.hits.map((h) => h.external_key)).toEqual(["TG-1"]);
    const one = await ledger.call("awr_search", { text: "巡检", limit: 1 }, caller);
    expect(one).toMatchObject({ truncated: true, query: { text: "巡检", limit: 1 } });
  });

  it("notices ADR files added, changed and removed, and reindexes them", async () => {
    const { root, ledger } = await open();
    const dir = join(root, "docs/decisions");
    writeFileSync(
      join(dir, "ADR-0004-new.md"),
      "# ADR-0004：新增雨量计\n\nStatus: proposed\n\n在东坡加装一台雨量计。\n",
    );
    const first = join(dir, "ADR-0001-plot-numbering.md");
    writeFileSync(
      first,
      readFileSync(first, "utf8").replace("Status: accepted", "Status: superseded"),
    );
    rmSync(join(dir, "sub/RFC-0003-drone-survey.md"));
    const stale = await ledger
      .call("awr_project_status", { view: "full" }, caller)
      .catch((e: unknown) => e);
    expect(stale).toMatchObject({ code: "SourceStale" });
    const result = await ledger.call("awr_source_reindex", { expected_revision: 1 }, caller);
    expect(result.added_paths).toEqual(["docs/decisions/ADR-0004-new.md"]);
    expect(result.removed_paths).toEqual(["docs/decisions/sub/RFC-0003-drone-survey.md"]);
    expect(result.changed_paths).toEqual(
      expect.arrayContaining(["docs/decisions", "docs/decisions/ADR-0001-plot-numbering.md"]),
    );
    const decisions = await ledgerStore(ledger)
      .db.selectFrom("entities")
      .select(["key", "status"])
      .where("kind", "=", "decision")
      .orderBy("key")
      .execute();
    expect(decisions).toEqual([
      { key: "ADR-0002", status: "accepted" },
      { key: "docs/decisions/ADR-0001-plot-numbering.md", status: "superseded" },
      { key: "docs/decisions/ADR-0004-new.md", status: "proposed" },
    ]);
    expect(
      (await ledger.call("awr_search", { text: "雨量计" }, caller)).hits[0]?.external_key,
    ).toBe("docs/decisions/ADR-0004-new.md");
  });
});
