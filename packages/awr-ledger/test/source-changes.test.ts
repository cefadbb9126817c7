// Reviewed source changes through the ledger's dispatch (awr_change_preview / apply / status /
// recover), on a real project and database: preview writes nothing, apply needs the reviewed
// preview and revision, a replay answers its recorded outcome, only the item's bytes change.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BACKENDS } from "./helpers/backends.js";
import { CHANGE_LEDGER, openChangeProject } from "./helpers/change-project.js";
import { ledgerFailure } from "./helpers/failures.js";
import type { OpenProject } from "./helpers/projects.js";

const ME = { client: "stdio" };
const OTHER = { client: "someone-else" };
const REASON = "The handler is written; the next step is its tests";

type Answer = Record<string, unknown> & { [key: string]: unknown };

describe.each(BACKENDS)("reviewed source changes on %s", (backend) => {
  let project: OpenProject;
  let file: string;
  beforeEach(async () => {
    project = await openChangeProject(backend);
    file = join(project.root, "work-ledger.yaml");
  }, 60_000);
  afterEach(() => project.close());

  const call = (tool: string, input: Record<string, unknown>, caller = ME) =>
    project.ledger.execute(tool, input, caller) as Promise<Answer>;
  const workEdit = (fields: Record<string, string>) => ({ kind: "work_edit", work: "W-1", fields });

  it("previews a work_edit without writing anything, then applies exactly that review once", async () => {
    const revision = await project.ledger.revision();
    const preview = await call("awr_change_preview", {
      request_id: "edit-1",
      reason: REASON,
      change: workEdit({ next_action: "Test the handler", title: "First task, revised" }),
    });
    expect(preview).toMatchObject({
      ok: true,
      status: "preview",
      project_revision: revision,
      read_only: true,
      runtime_write_performed: false,
      source_write_performed: false,
      request_id: "edit-1",
      change_kind: "work_edit",
      journal: "source_change",
      outcome_query: "awr_change_status",
      recovery_tool: "awr_change_recover",
      view: "work_edit",
      review: {
        before: { next_action: "Write the handler", title: "First task" },
        after: { next_action: "Test the handler", title: "First task, revised" },
      },
    });
    expect(preview["preview_fingerprint"]).toMatch(/^sha256:/);
    expect((preview["guidance"] as Answer)["next_action"]).toContain("awr_change_apply");
    const change = preview["change"] as Answer;
    expect(change["source_fingerprint"]).toMatch(/^sha256:/);
    // Nothing was written: the bytes, the revision, the journal.
    expect(readFileSync(file, "utf8")).toBe(CHANGE_LEDGER);
    expect(await project.ledger.revision()).toBe(revision);
    expect(
      await call("awr_change_status", { request_id: "edit-1", kind: "work_edit" }),
    ).toMatchObject({ found: false, read_only: true, source_write_performed: false });

    const applyInput = {
      request_id: "edit-1",
      reason: REASON,
      change,
      expected_revision: revision,
      expected_preview: preview["preview_fingerprint"],
    };
    const applied = await call("awr_change_apply", applyInput);
    expect(applied).toMatchObject({
      ok: true,
      status: "completed",
      write_outcome: "applied",
      phases: ["prepared", "source_written", "reindexed"],
      source_write_performed: true,
      runtime_write_performed: true,
      historical_outcome: false,
      project_revision: revision + 1,
      journal: "source_change",
      change_kind: "work_edit",
    });
    // Byte-exact: only the two values changed; comments, CRLF, CJK, order kept.
    expect(readFileSync(file, "utf8")).toBe(
      CHANGE_LEDGER.replace("title: First task   #", "title: First task, revised   #").replace(
        "next_action: Write the handler",
        "next_action: Test the handler",
      ),
    );
    const work = (await call("awr_work_get", { work: "W-1" })) as Answer;
    expect(JSON.stringify(work)).toContain("First task, revised");

    // The same request again: its recorded outcome, nothing written, no revision spent.
    const bytes = readFileSync(file);
    const again = await call("awr_change_apply", applyInput);
    expect(again).toMatchObject({ status: "completed", historical_outcome: true });
    expect(again["source_write_performed"]).toBe(false);
    expect(readFileSync(file)).toEqual(bytes);
    expect(await project.ledger.revision()).toBe(revision + 1);

    // The same id for another change is refused.
    const other = await ledgerFailure(
      call("awr_change_apply", { ...applyInput, reason: "Something else entirely" }),
    );
    expect(other.code).toBe("SourceConflict");

    // Not the MCP request journal: the operation journal has no entry for it.
    const journaled = await ledgerFailure(call("awr_operation_get", { request_id: "edit-1" }));
    expect(journaled.code).toBe("NotFound");
    const status = await call("awr_change_status", { request_id: "edit-1", kind: "work_edit" });
    expect(status).toMatchObject({
      found: true,
      status: "completed",
      current_source: "after",
      historical_outcome: true,
    });
    // Another client guessing the id sees nothing and cannot recover it.
    expect(
      await call("awr_change_status", { request_id: "edit-1", kind: "work_edit" }, OTHER),
    ).toMatchObject({ found: false });
    const recoverOther = await ledgerFailure(
      call(
        "awr_change_recover",
        { request_id: "edit-1", kind: "work_edit", expected_revision: revision + 1 },
        OTHER,
      ),
    );
    expect(recoverOther.code).toBe("NotFound");
  });

  it("refuses a review whose source changed since, leaving bytes and revision as they are", async () => {
    const revision = await project.ledger.revision();
    const preview = await call("awr_change_preview", {
      request_id: "edit-2",
      reason: REASON,
      change: workEdit({ priority: "high" }),
    });
    const edited = `${CHANGE_LEDGER}# someone else's note\r\n`;
    writeFileSync(file, edited);
    const refused = await ledgerFailure(
      call("awr_change_apply", {
        request_id: "edit-2",
        reason: REASON,
        change: preview["change"],
        expected_revision: revision,
        expected_preview: preview["preview_fingerprint"],
      }),
    );
    expect(refused.code).toBe("SourceConflict");
    expect(readFileSync(file, "utf8")).toBe(edited);
    expect(await project.ledger.revision()).toBe(revision);
    expect(
      await call("awr_change_status", { request_id: "edit-2", kind: "work_edit" }),
    ).toMatchObject({ found: false });
  });

  it("refuses an apply of another client's preview, and a stale revision", async () => {
    const revision = await project.ledger.revision();
    const preview = await call("awr_change_preview", {
      request_id: "edit-3",
      reason: REASON,
      change: workEdit({ summary: "改訂された要約" }),
    });
    const input = {
      request_id: "edit-3",
      reason: REASON,
      change: preview["change"],
      expected_revision: revision,
      expected_preview: preview["preview_fingerprint"],
    };
    expect((await ledgerFailure(call("awr_change_apply", input, OTHER))).code).toBe(
      "SourceConflict",
    );
    expect(
      (await ledgerFailure(call("awr_change_apply", { ...input, expected_revision: revision + 7 })))
        .code,
    ).toBe("RevisionConflict");
    expect(readFileSync(file, "utf8")).toBe(CHANGE_LEDGER);
    const applied = await call("awr_change_apply", input);
    expect(applied["status"]).toBe("completed");
    expect(readFileSync(file, "utf8")).toBe(
      CHANGE_LEDGER.replace("summary: 支払いページ", "summary: 改訂された要約"),
    );
  });

  it("edits a work item's fields and activates a draft through kind edit, with before/after text", async () => {
    let revision = await project.ledger.revision();
    const fingerprint = (await project.ledger.execute(
      "awr_work_get",
      { work: "W-2" },
      ME,
    )) as Answer;
    expect(fingerprint).toBeDefined();
    const status0 = await call("awr_change_preview", {
      request_id: "probe",
      reason: REASON,
      change: workEdit({ priority: "low" }),
    });
    const sourceFingerprint = (status0["change"] as Answer)["source_fingerprint"];
    const fields = {
      kind: "edit",
      change: {
        operation: "fields",
        kind: "work_item",
        target: "W-2",
        source_fingerprint: sourceFingerprint,
        fields: { title: "二番目（改）" },
      },
    };
    const preview = await call("awr_change_preview", {
      request_id: "refine",
      reason: REASON,
      change: fields,
    });
    const plan = (preview["preview"] as Answer)["plan"] as Answer;
    expect(plan["before_text"]).toBe(CHANGE_LEDGER);
    expect(plan["after_text"]).toBe(CHANGE_LEDGER.replace("'二番目'", "'二番目（改）'"));
    const applied = await call("awr_change_apply", {
      request_id: "refine",
      reason: REASON,
      change: fields,
      expected_revision: revision,
      expected_preview: (preview["preview"] as Answer)["fingerprint"],
    });
    expect(applied).toMatchObject({ status: "completed", change_kind: "edit" });
    expect(readFileSync(file, "utf8")).toBe(plan["after_text"]);
    revision = applied["project_revision"] as number;

    // Activation: the draft's prerequisite is completed, so it becomes planned.
    const current = await call("awr_change_preview", {
      request_id: "probe-2",
      reason: REASON,
      change: workEdit({ priority: "low" }),
    });
    const activate = {
      kind: "edit",
      change: {
        operation: "activate_draft",
        work: "D-1",
        source_fingerprint: (current["change"] as Answer)["source_fingerprint"],
      },
    };
    const reviewed = await call("awr_change_preview", {
      request_id: "activate",
      reason: "The prerequisite is done",
      change: activate,
    });
    const done = await call("awr_change_apply", {
      request_id: "activate",
      reason: "The prerequisite is done",
      change: activate,
      expected_revision: revision,
      expected_preview: (reviewed["preview"] as Answer)["fingerprint"],
    });
    expect(done["status"]).toBe("completed");
    expect(readFileSync(file, "utf8")).toContain(
      "status: planned\r\n    goal: goal-a\r\n    acceptance:\r\n      - Reviewed",
    );

    // A value the editor does not write (a map), and a lifecycle field, are refused without writing.
    const list = await ledgerFailure(
      call("awr_change_preview", {
        request_id: "tags",
        reason: REASON,
        change: { ...fields, change: { ...fields.change, fields: { tags: { x: 1 } } } },
      }),
    );
    expect(list.code).toBe("Unsupported");
    const lifecycle = await ledgerFailure(
      call("awr_change_preview", {
        request_id: "status",
        reason: REASON,
        change: { ...fields, change: { ...fields.change, fields: { status: "completed" } } },
      }),
    );
    expect(lifecycle.code).toBe("Unsupported");
  });

  it("keeps activation's gates: only a draft, only once its prerequisites are done", async () => {
    const probe = await call("awr_change_preview", {
      request_id: "probe",
      reason: REASON,
      change: workEdit({ priority: "low" }),
    });
    const source_fingerprint = (probe["change"] as Answer)["source_fingerprint"];
    const activate = (work: string) => ({
      request_id: `activate-${work}`,
      reason: REASON,
      change: { kind: "edit", change: { operation: "activate_draft", work, source_fingerprint } },
    });
    expect((await ledgerFailure(call("awr_change_preview", activate("W-1")))).code).toBe(
      "InvalidTransition",
    );
    // Reopen the prerequisite of D-1 on disk and reindex: D-1 must stay a draft.
    writeFileSync(file, CHANGE_LEDGER.replace("status: completed", "status: in_progress"));
    await project.ledger.execute(
      "awr_source_reindex",
      { expected_revision: await project.ledger.revision() },
      ME,
    );
    const current = await call("awr_change_preview", {
      request_id: "probe-2",
      reason: REASON,
      change: workEdit({ priority: "low" }),
    });
    const blocked = await ledgerFailure(
      call("awr_change_preview", {
        ...activate("D-1"),
        change: {
          kind: "edit",
          change: {
            operation: "activate_draft",
            work: "D-1",
            source_fingerprint: (current["change"] as Answer)["source_fingerprint"],
          },
        },
      }),
    );
    expect(blocked.code).toBe("DependencyBlocked");
    expect(blocked.details).toMatchObject({ blocked_by: ["W-2"] });
  });

  it("writes a number and a boolean field as plain scalars, adding the missing lines", async () => {
    const revision = await project.ledger.revision();
    const probe = await call("awr_change_preview", {
      request_id: "probe",
      reason: REASON,
      change: workEdit({ priority: "low" }),
    });
    const change = {
      kind: "edit",
      change: {
        operation: "fields",
        kind: "work_item",
        target: "W-1",
        source_fingerprint: (probe["change"] as Answer)["source_fingerprint"],
        fields: { score: 5, required: false, priority: "high" },
      },
    };
    const preview = await call("awr_change_preview", { request_id: "s", reason: REASON, change });
    const expected = CHANGE_LEDGER.replace("priority: low", "priority: high").replace(
      "    next_action: Write the handler\r\n",
      "    next_action: Write the handler\r\n    score: 5\r\n    required: false\r\n",
    );
    expect(((preview["preview"] as Answer)["plan"] as Answer)["after_text"]).toBe(expected);
    await call("awr_change_apply", {
      request_id: "s",
      reason: REASON,
      change,
      expected_revision: revision,
      expected_preview: (preview["preview"] as Answer)["fingerprint"],
    });
    expect(readFileSync(file, "utf8")).toBe(expected);
  });

  it("applies one request once when two applies of it race", async () => {
    const revision = await project.ledger.revision();
    const preview = await call("awr_change_preview", {
      request_id: "race",
      reason: REASON,
      change: workEdit({ next_action: "Race it" }),
    });
    const input = {
      request_id: "race",
      reason: REASON,
      change: preview["change"],
      expected_revision: revision,
      expected_preview: preview["preview_fingerprint"],
    };
    const answers = await Promise.all([
      call("awr_change_apply", input),
      call("awr_change_apply", input),
    ]);
    expect(answers.map((a) => a["historical_outcome"]).sort()).toEqual([false, true]);
    expect(answers.filter((a) => a["source_write_performed"] === true)).toHaveLength(1);
    expect(await project.ledger.revision()).toBe(revision + 1);
    expect(readFileSync(file, "utf8")).toBe(
      CHANGE_LEDGER.replace("next_action: Write the handler", "next_action: Race it"),
    );
  });

  it("answers an honest Unsupported for a related batch, naming what is missing, before reading", async () => {
    const revision = await project.ledger.revision();
    const refused = await ledgerFailure(
      call("awr_change_preview", {
        request_id: "x",
        reason: REASON,
        change: { kind: "batch", change: { kind: "related", changes: [] } },
      }),
    );
    expect(refused.code).toBe("Unsupported");
    expect(refused.message).toContain("related batch");
    expect(await call("awr_change_status", { request_id: "x", kind: "batch" })).toMatchObject({
      found: false,
    });
    expect(readFileSync(file, "utf8")).toBe(CHANGE_LEDGER);
    expect(await project.ledger.revision()).toBe(revision);
  });
});
