// Reviewed source changes of kinds create and batch, and list-valued edits, through the ledger's
// dispatch on a real project and database: the new draft and the batch write only their items'
// bytes, every refusal leaves the source bytes and the project revision as they were, and
// status / recover work from the journal (recovery never writes twice, keeps outside edits).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ledgerStore } from "@awr/awr-ledger/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BACKENDS, tempRoot } from "./helpers/backends.js";
import { CHANGE_LEDGER, CHANGE_MANIFEST, openChangeProject } from "./helpers/change-project.js";
import { ledgerFailure } from "./helpers/failures.js";
import { expectOnlyChanged, itemSpan, ledgerData, sharedFixtures } from "./helpers/ledger-edit.js";
import { type OpenProject, openProjectAt } from "./helpers/projects.js";

const ME = { client: "stdio" };
const REASON = "Plan the follow-up work";

type Answer = Record<string, unknown>;

describe.each(BACKENDS)("create and batch source changes on %s", (backend) => {
  let project: OpenProject;
  let file: string;
  beforeEach(async () => {
    project = await openChangeProject(backend);
    file = join(project.root, "work-ledger.yaml");
  }, 60_000);
  afterEach(() => project.close());

  const call = (tool: string, input: Answer, caller = ME) =>
    project.ledger.execute(tool, input, caller) as Promise<Answer>;
  const fingerprint = async () => {
    const sources = (await call("awr_source_list", {})) as { sources?: Answer[] };
    const listed = (sources.sources ?? []).find((s) => s["path"] === "work-ledger.yaml");
    return String(listed?.["fingerprint"]);
  };

  /** Previews then applies `change` under `id`; returns the preview and the apply's answer. */
  async function previewApply(id: string, change: Answer) {
    const revision = await project.ledger.revision();
    const preview = await call("awr_change_preview", { request_id: id, reason: REASON, change });
    const input = {
      request_id: id,
      reason: REASON,
      change,
      expected_revision: revision,
      expected_preview: (preview["preview"] as Answer)["fingerprint"],
    };
    return { preview, input, applied: await call("awr_change_apply", input) };
  }

  /**
   * Asserts `attempt` is refused with `code` and changes neither the bytes nor the revision. It
   * is started only once both are read, so nothing it does can hide in the "before".
   */
  async function refusedUnchanged(attempt: () => Promise<unknown>, code: string) {
    const bytes = readFileSync(file);
    const revision = await project.ledger.revision();
    const error = await ledgerFailure(attempt());
    expect(error.code, error.message).toBe(code);
    expect(readFileSync(file)).toEqual(bytes);
    expect(await project.ledger.revision()).toBe(revision);
    return error;
  }

  const batch = async (operations: Answer[], source_fingerprint?: string) => ({
    kind: "batch",
    change: {
      kind: "ledger",
      source_id: "work-ledger.yaml",
      source_fingerprint: source_fingerprint ?? (await fingerprint()),
      operations,
    },
  });

  it("creates a draft: preview writes nothing, apply appends only the new item, replay writes nothing", async () => {
    const revision = await project.ledger.revision();
    const change = {
      kind: "create",
      title: "レビュー the appendix",
      fields: {
        acceptance: ["The appendix is reviewed"],
        next_action: "Read it",
        depends_on: ["W-1"],
      },
    };
    const preview = await call("awr_change_preview", {
      request_id: "create-1",
      reason: REASON,
      change,
    });
    expect(preview).toMatchObject({
      status: "preview",
      draft: true,
      completion_claimed: false,
      source_id: "work-ledger.yaml",
      source_write_performed: false,
      runtime_write_performed: false,
      change_kind: "create",
    });
    const key = String(preview["external_key"]);
    expect(key).toMatch(/^WORK-[0-9a-f]{32}$/);
    expect((preview["preview"] as Answer)["after_text"]).toContain(key);
    expect(readFileSync(file, "utf8")).toBe(CHANGE_LEDGER);
    expect(await project.ledger.revision()).toBe(revision);

    const { applied, input } = await previewApply("create-1", change);
    expect(applied).toMatchObject({
      ok: true,
      status: "completed",
      external_key: key,
      source_id: "work-ledger.yaml",
      draft: true,
      phases: ["prepared", "source_written", "reindexed"],
      source_write_performed: true,
      project_revision: revision + 1,
    });
    // Byte-exact: the old text is kept whole; the new item follows, CRLF like the file.
    const after = readFileSync(file, "utf8");
    expect(after.startsWith(CHANGE_LEDGER)).toBe(true);
    const added = after.slice(CHANGE_LEDGER.length);
    expect(added).toContain(`id: ${key}`);
    expect(added).toContain("status: draft");
    expect(added.replaceAll("\r\n", "")).not.toContain("\n");
    const work = JSON.stringify(await call("awr_work_get", { work: key }));
    expect(work).toContain('"draft"');
    expect(work).toContain("The appendix is reviewed");

    const again = await call("awr_change_apply", input);
    expect(again).toMatchObject({
      status: "completed",
      historical_outcome: true,
      external_key: key,
    });
    expect(again["source_write_performed"]).toBe(false);
    expect(readFileSync(file, "utf8")).toBe(after);
    expect(await project.ledger.revision()).toBe(revision + 1);
    expect(
      await call("awr_change_status", { request_id: "create-1", kind: "create" }),
    ).toMatchObject({
      found: true,
      status: "completed",
      current_source: "after",
      external_key: key,
    });
    // Another request id makes another key; the same id of another client too.
    const other = await call(
      "awr_change_preview",
      { request_id: "create-1", reason: REASON, change },
      { client: "someone-else" },
    );
    expect(other["external_key"]).not.toBe(key);
  });

  it("refuses creation fields it may not set, missing references and stale reviews, changing nothing", async () => {
    const preview = (change: Answer) =>
      call("awr_change_preview", { request_id: "c", reason: REASON, change });
    await refusedUnchanged(
      () => preview({ kind: "create", title: "T", fields: { status: "completed" } }),
      "InvalidInput",
    );
    await refusedUnchanged(() => preview({ kind: "create", title: "" }), "InvalidInput");
    const unknown = await refusedUnchanged(
      () => preview({ kind: "create", title: "T", source_id: "nope.yaml" }),
      "InvalidInput",
    );
    expect(unknown.message).toContain("work-ledger.yaml");
    const missing = await refusedUnchanged(
      () => preview({ kind: "create", title: "T", fields: { depends_on: ["NOPE"] } }),
      "RuleViolation",
    );
    expect(missing.message).toContain("NOPE");
    // A source edited after the review: the apply is refused, the outside bytes kept.
    const change = { kind: "create", title: "Late" };
    const revision = await project.ledger.revision();
    const p = await call("awr_change_preview", { request_id: "late", reason: REASON, change });
    writeFileSync(file, `${CHANGE_LEDGER}# edited outside\r\n`);
    const outside = readFileSync(file);
    const late = await ledgerFailure(
      call("awr_change_apply", {
        request_id: "late",
        reason: REASON,
        change,
        expected_revision: revision,
        expected_preview: (p["preview"] as Answer)["fingerprint"],
      }),
    );
    expect(["SourceConflict", "SourceStale"]).toContain(late.code);
    expect(readFileSync(file)).toEqual(outside);
    expect(await project.ledger.revision()).toBe(revision);
  });

  it("recovers a create journaled before or after its write without writing twice, keeping outside edits", async () => {
    const { applied } = await previewApply("create-r", { kind: "create", title: "Recover me" });
    const after = readFileSync(file);
    const revision = await project.ledger.revision();
    const db = ledgerStore(project.ledger).db;
    const setPhase = (phase: string) =>
      db
        .updateTable("source_changes")
        .set({ phase })
        .where("request_id", "=", "create-r")
        .execute();
    // The write happened, the journal did not record it: recovery writes nothing.
    await setPhase("prepared");
    expect(
      await call("awr_change_status", { request_id: "create-r", kind: "create" }),
    ).toMatchObject({
      status: "pending_recovery",
      current_source: "after",
      external_key: applied["external_key"],
    });
    const recovered = await call("awr_change_recover", {
      request_id: "create-r",
      kind: "create",
      expected_revision: revision,
    });
    expect(recovered).toMatchObject({ status: "completed", source_write_performed: false });
    expect(readFileSync(file)).toEqual(after);
    // Not yet written, then edited outside: recovery stops and keeps those bytes.
    writeFileSync(file, CHANGE_LEDGER.replace("priority: low", "priority: urgent"));
    await setPhase("prepared");
    const theirs = readFileSync(file);
    const stopped = await ledgerFailure(
      call("awr_change_recover", {
        request_id: "create-r",
        kind: "create",
        expected_revision: await project.ledger.revision(),
      }),
    );
    expect(stopped.code).toBe("SourceConflict");
    expect(readFileSync(file)).toEqual(theirs);
  });

  it("applies a batch checked as a whole: imports in any order, a fields edit, only those bytes change", async () => {
    const revision = await project.ledger.revision();
    const change = await batch([
      {
        operation: "import",
        external_key: "APPENDIX",
        title: "Review appendix",
        fields: { depends_on: ["RESEARCH"] },
      },
      {
        operation: "import",
        external_key: "RESEARCH",
        title: "Review source material",
        duplicate: "fail",
      },
      { operation: "fields", target: "W-1", fields: { next_action: "Review the appendix plan" } },
      { operation: "import", external_key: "W-2", title: "二番目", duplicate: "skip_exact" },
    ]);
    const { preview, applied, input } = await previewApply("batch-1", change);
    expect(preview).toMatchObject({ status: "preview", source_write_performed: false });
    expect(((preview["preview"] as Answer)["files"] as Answer[])[0]).toMatchObject({
      path: "work-ledger.yaml",
      before_text: CHANGE_LEDGER,
    });
    expect(applied).toMatchObject({
      status: "completed",
      source_id: "work-ledger.yaml",
      file_total: 1,
      applied_files: [0],
      filesystem_atomic: false,
      partial_apply: false,
      project_revision: revision + 1,
    });
    expect(applied["outcomes"]).toEqual([
      expect.objectContaining({ external_key: "APPENDIX", outcome: "changed" }),
      expect.objectContaining({ external_key: "RESEARCH", outcome: "changed" }),
      expect.objectContaining({ external_key: "W-1", outcome: "changed" }),
      expect.objectContaining({ external_key: "W-2", outcome: "skipped" }),
    ]);
    const after = readFileSync(file, "utf8");
    const edited = CHANGE_LEDGER.replace(
      "next_action: Write the handler",
      "next_action: Review the appendix plan",
    );
    expect(after.startsWith(edited)).toBe(true);
    expect(after.slice(edited.length)).toContain("APPENDIX");
    expect(after.slice(edited.length).replaceAll("\r\n", "")).not.toContain("\n");
    expect(JSON.stringify(await call("awr_work_get", { work: "APPENDIX" }))).toContain("RESEARCH");
    const again = await call("awr_change_apply", input);
    expect(again).toMatchObject({ status: "completed", historical_outcome: true });
    expect(readFileSync(file, "utf8")).toBe(after);
    expect(await call("awr_change_status", { request_id: "batch-1", kind: "batch" })).toMatchObject(
      {
        found: true,
        current_source: "after",
        outcomes: applied["outcomes"],
      },
    );
  });

  it("refuses a batch that would break the graph or its rules, changing nothing", async () => {
    const preview = async (operations: Answer[], fp?: string) =>
      call("awr_change_preview", {
        request_id: "b",
        reason: REASON,
        change: await batch(operations, fp),
      });
    // A cycle: W-2 would require D-1, which requires W-2.
    const cycle = await refusedUnchanged(
      () => preview([{ operation: "fields", target: "W-2", fields: { depends_on: ["D-1"] } }]),
      "RuleViolation",
    );
    expect(cycle.message).toContain("cycle");
    // A missing required reference.
    await refusedUnchanged(
      () =>
        preview([
          { operation: "import", external_key: "N", title: "N", fields: { depends_on: ["NOPE"] } },
        ]),
      "RuleViolation",
    );
    // Archiving work another item requires; together with its dependent it is fine.
    const archive = await refusedUnchanged(
      () => preview([{ operation: "archive", target: "W-2", archived: true }]),
      "RuleViolation",
    );
    expect(archive.message).toContain("D-1");
    expect(
      await preview([
        { operation: "archive", target: "W-2", archived: true },
        { operation: "archive", target: "D-1", archived: true },
      ]),
    ).toMatchObject({ status: "preview" });
    // Duplicate keys: an existing item with duplicate fail, or other content with skip_exact.
    await refusedUnchanged(
      () => preview([{ operation: "import", external_key: "W-1", title: "First task" }]),
      "SourceConflict",
    );
    await refusedUnchanged(
      () =>
        preview([
          { operation: "import", external_key: "W-1", title: "Other", duplicate: "skip_exact" },
        ]),
      "SourceConflict",
    );
    // A stale fingerprint, a related batch, closed fields, too many operations, one target twice.
    await refusedUnchanged(
      () => preview([{ operation: "archive", target: "W-2", archived: true }], "sha256:0"),
      "SourceConflict",
    );
    const related = await refusedUnchanged(
      () =>
        call("awr_change_preview", {
          request_id: "b",
          reason: REASON,
          change: { kind: "batch", change: { kind: "related", changes: [] } },
        }),
      "Unsupported",
    );
    expect(related.message).toContain("document editor");
    await refusedUnchanged(
      () => preview([{ operation: "fields", target: "W-1", fields: { status: "completed" } }]),
      "Unsupported",
    );
    await refusedUnchanged(
      () =>
        preview(
          Array.from({ length: 101 }, (_, i) => ({
            operation: "import",
            external_key: `K-${i}`,
            title: "K",
          })),
        ),
      "InvalidInput",
    );
    await refusedUnchanged(
      () =>
        preview([
          { operation: "archive", target: "W-2", archived: true },
          { operation: "fields", target: "W-2", fields: { title: "x" } },
        ]),
      "InvalidInput",
    );
    expect(readFileSync(file, "utf8")).toBe(CHANGE_LEDGER);

    // Archived together, then restoring the dependent alone is refused; with its prerequisite not.
    await previewApply(
      "archive-both",
      await batch([
        { operation: "archive", target: "W-2", archived: true },
        { operation: "archive", target: "D-1", archived: true },
      ]),
    );
    const archived = readFileSync(file, "utf8");
    expect(archived).toContain("archived: true");
    const restore = await refusedUnchanged(
      () => preview([{ operation: "archive", target: "D-1", archived: false }]),
      "RuleViolation",
    );
    expect(restore.message).toContain("W-2");
    expect(
      await preview([
        { operation: "archive", target: "D-1", archived: false },
        { operation: "archive", target: "W-2", archived: false },
      ]),
    ).toMatchObject({ status: "preview" });
    expect(readFileSync(file, "utf8")).toBe(archived);
  });

  it("refuses a batch changing an occupied task's planning contract, but not its next_action", async () => {
    await call("awr_session_start", {
      work: "W-1",
      conversation: "busy",
      agent: "a",
      provider: "p",
      model: "m",
      claim: true,
      expected_revision: await project.ledger.revision(),
    });
    const occupied = await refusedUnchanged(
      async () =>
        call("awr_change_preview", {
          request_id: "occ",
          reason: REASON,
          change: await batch([
            { operation: "fields", target: "W-1", fields: { acceptance: ["More"] } },
          ]),
        }),
      "ClaimConflict",
    );
    expect(occupied.message).toContain("W-1");
    expect(
      await call("awr_change_preview", {
        request_id: "occ-note",
        reason: REASON,
        change: await batch([
          { operation: "fields", target: "W-1", fields: { next_action: "Keep going" } },
        ]),
      }),
    ).toMatchObject({ status: "preview" });
  });

  it("edits list-valued fields through kind edit, byte-exact, and checks the graph they make", async () => {
    const fp = await fingerprint();
    const edit = (fields: Answer) => ({
      kind: "edit",
      change: {
        operation: "fields",
        kind: "work_item",
        target: "W-1",
        source_fingerprint: fp,
        fields,
      },
    });
    await refusedUnchanged(
      () =>
        call("awr_change_preview", {
          request_id: "e-cycle",
          reason: REASON,
          change: {
            kind: "edit",
            change: {
              operation: "fields",
              kind: "work_item",
              target: "W-2",
              source_fingerprint: fp,
              fields: { depends_on: ["D-1"] },
            },
          },
        }),
      "RuleViolation",
    );
    const { applied } = await previewApply(
      "e-list",
      edit({ acceptance: ["It works", "テスト済み"], tags: ["api"] }),
    );
    expect(applied).toMatchObject({ status: "completed", source_write_performed: true });
    const after = readFileSync(file, "utf8");
    const start = CHANGE_LEDGER.indexOf("  - id: W-2");
    expect(after.endsWith(CHANGE_LEDGER.slice(start))).toBe(true);
    expect(after.startsWith(CHANGE_LEDGER.slice(0, CHANGE_LEDGER.indexOf("    acceptance:")))).toBe(
      true,
    );
    expect(after).toContain("テスト済み");
    expect(after.replaceAll("\r\n", "")).not.toContain("\n");
    expect(JSON.stringify(await call("awr_work_get", { work: "W-1" }))).toContain("テスト済み");
    // Journaled but not written (as after a crash): recovery writes exactly the reviewed bytes.
    const db = ledgerStore(project.ledger).db;
    writeFileSync(file, CHANGE_LEDGER);
    await call("awr_source_reindex", { expected_revision: await project.ledger.revision() });
    await db
      .updateTable("source_changes")
      .set({ phase: "prepared" })
      .where("request_id", "=", "e-list")
      .execute();
    const recovered = await call("awr_change_recover", {
      request_id: "e-list",
      kind: "edit",
      expected_revision: await project.ledger.revision(),
    });
    expect(recovered).toMatchObject({ status: "completed", source_write_performed: true });
    expect(readFileSync(file, "utf8")).toBe(after);
  });

  it("refuses to activate a draft someone holds a claim on", async () => {
    const db = ledgerStore(project.ledger).db;
    const revision = await project.ledger.revision();
    // A claim in force on the draft (as a host would hold while refining it).
    const session = (await db.selectFrom("sessions").select("id").executeTakeFirst())?.id ?? "S";
    await db
      .insertInto("claims")
      .values({
        id: "C-1",
        work: "D-1",
        session,
        client: "stdio",
        status: "active",
        ttl_ms: null,
        expires_at: null,
        acquired_revision: revision,
        ended_revision: null,
        acquired_at: new Date().toISOString(),
        ended_at: null,
      } as never)
      .execute();
    await refusedUnchanged(
      async () =>
        call("awr_change_preview", {
          request_id: "act",
          reason: REASON,
          change: {
            kind: "edit",
            change: {
              operation: "activate_draft",
              work: "D-1",
              source_fingerprint: await fingerprint(),
            },
          },
        }),
      "ClaimConflict",
    );
  });
});

describe.each(BACKENDS)("creation over several work ledgers on %s", (backend) => {
  it("needs source_id when two ledgers are primary, naming them; refuses a key of another source", async () => {
    const { root, remove } = tempRoot("awr-change-two-");
    writeFileSync(
      join(root, "a.yaml"),
      "work_items:\n  - id: A-1\n    title: A\n    status: ready\n",
    );
    writeFileSync(join(root, "b.yaml"), "work_items: []\n");
    writeFileSync(
      join(root, "project.toml"),
      `[project]\nname = "two"\nexternal_key = "TWO"\nauthority_mode = "source_first"\n\n[[sources]]\ndomain = "work"\nrole = "primary"\npath = "a.yaml"\nadapter = "yaml-ledger-v1"\n\n[[sources]]\ndomain = "work"\nrole = "primary"\npath = "b.yaml"\nadapter = "yaml-ledger-v1"\n`,
    );
    const project = await openProjectAt(root, join(root, "project.toml"), backend, remove);
    try {
      const call = (tool: string, input: Answer) =>
        project.ledger.execute(tool, input, ME) as Promise<Answer>;
      const bytes = readFileSync(join(root, "b.yaml"));
      const revision = await project.ledger.revision();
      const ambiguous = await ledgerFailure(
        call("awr_change_preview", {
          request_id: "x",
          reason: REASON,
          change: { kind: "create", title: "T" },
        }),
      );
      expect(ambiguous.code).toBe("InvalidInput");
      expect(ambiguous.message).toContain("a.yaml");
      expect(ambiguous.message).toContain("b.yaml");
      const chosen = await call("awr_change_preview", {
        request_id: "x",
        reason: REASON,
        change: { kind: "create", title: "T", source_id: "b.yaml" },
      });
      expect(chosen).toMatchObject({ status: "preview", source_id: "b.yaml" });
      const sources = (await call("awr_source_list", {})) as { sources?: Answer[] };
      const fp = (sources.sources ?? []).find((s) => s["path"] === "b.yaml")?.["fingerprint"];
      const duplicate = await ledgerFailure(
        call("awr_change_preview", {
          request_id: "y",
          reason: REASON,
          change: {
            kind: "batch",
            change: {
              kind: "ledger",
              source_id: "b.yaml",
              source_fingerprint: fp,
              operations: [{ operation: "import", external_key: "A-1", title: "A" }],
            },
          },
        }),
      );
      expect(duplicate.code).toBe("SourceConflict");
      expect(duplicate.message).toContain("another source");
      expect(readFileSync(join(root, "b.yaml"))).toEqual(bytes);
      expect(await project.ledger.revision()).toBe(revision);
    } finally {
      await project.close();
    }
  });
});

// The original's real ledgers (shared fixtures outside the repository, when present): a draft
// created and a batch applied change only the new item's and the edited item's characters.
const SHARED = sharedFixtures();
const REAL = [
  "awr-real/basic/work-ledger.yaml",
  "awr-real/branch-handoff/work-ledger.yaml",
  "awr-real/awr-self/ledger/work-ledger.yaml",
].filter((path) => SHARED !== undefined && existsSync(join(SHARED, path)));

/** `after` is `before` with one run of text inserted (nothing of `before` changed). */
function expectOnlyInserted(before: string, after: string): void {
  let at = 0;
  while (at < before.length && before[at] === after[at]) at++;
  expect(after.endsWith(before.slice(at)), "the rest of the ledger is kept").toBe(true);
  expect(after.length).toBeGreaterThan(before.length);
}

describe.skipIf(REAL.length === 0)("create and batch over the original's real ledgers", () => {
  it.each(REAL)("writes only the new and the edited item's bytes of %s", async (path) => {
    const { root, remove } = tempRoot("awr-change-real-");
    const original = readFileSync(join(SHARED as string, path), "utf8");
    writeFileSync(join(root, "work-ledger.yaml"), original);
    writeFileSync(join(root, "project.toml"), CHANGE_MANIFEST);
    const project = await openProjectAt(root, join(root, "project.toml"), "sqlite", remove);
    try {
      const file = join(root, "work-ledger.yaml");
      const call = (tool: string, input: Answer) =>
        project.ledger.execute(tool, input, ME) as Promise<Answer>;
      const apply = async (id: string, change: Answer) => {
        const revision = await project.ledger.revision();
        const preview = await call("awr_change_preview", {
          request_id: id,
          reason: REASON,
          change,
        });
        return await call("awr_change_apply", {
          request_id: id,
          reason: REASON,
          change,
          expected_revision: revision,
          expected_preview: (preview["preview"] as Answer)["fingerprint"],
        });
      };
      const created = await apply("real-create", {
        kind: "create",
        title: "复核真实台账",
        fields: { acceptance: ["差异可复核"], next_action: "读取附件" },
      });
      expect(created).toMatchObject({ status: "completed", draft: true });
      const afterCreate = readFileSync(file, "utf8");
      expectOnlyInserted(original, afterCreate);
      const key = String((ledgerData(original)["work_items"] as { id: string }[])[0]?.id);
      const sources = (await call("awr_source_list", {})) as { sources?: Answer[] };
      const fp = (sources.sources ?? []).find((s) => s["path"] === "work-ledger.yaml")?.[
        "fingerprint"
      ];
      const batched = await apply("real-batch", {
        kind: "batch",
        change: {
          kind: "ledger",
          source_id: "work-ledger.yaml",
          source_fingerprint: fp,
          operations: [
            {
              operation: "fields",
              target: key,
              fields: { next_action: "复核 PLAN.md", tags: ["真实"] },
            },
          ],
        },
      });
      expect(batched).toMatchObject({ status: "completed" });
      expectOnlyChanged(afterCreate, readFileSync(file, "utf8"), itemSpan(afterCreate, key));
    } finally {
      await project.close();
    }
  });
});
