// Chaos: a real `kill -9` of a process applying a reviewed source change, after the change is
// journaled (before its source is written) and after the source is written (before the
// reindex). Status is honest about the phase reached, even while the sources are stale;
// recovery finishes the change without writing twice, and keeps bytes edited outside.
import { spawn } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Backend, initProject, type Ledger, openLedger } from "@awr/awr-ledger";
import { FAULT_ENV, ledgerStore } from "@awr/awr-ledger/testing";
import { ulid } from "ulid";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BACKENDS, dropServerSchema, storageManifestTable, tempRoot } from "./helpers/backends.js";
import { CHANGE_LEDGER, CHANGE_MANIFEST } from "./helpers/change-project.js";
import { buildPackageForChildren } from "./helpers/child-build.js";
import { ledgerFailure } from "./helpers/failures.js";

const WRITER = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "change-writer.mjs");
const ME = { client: "stdio" };
const REASON = "Record the next step";
const AFTER = CHANGE_LEDGER.replace("next_action: Write the handler", "next_action: Test it");

type Answer = Record<string, unknown>;

describe.each(BACKENDS)("a source change killed mid-apply on %s", (backend: Backend) => {
  let build: ReturnType<typeof buildPackageForChildren>;
  let root: string;
  let remove: () => void;
  let ledger: Ledger;
  let file: string;
  let schema: string;
  beforeAll(() => {
    build = buildPackageForChildren();
  });
  afterAll(() => build?.remove());
  beforeEach(async () => {
    ({ root, remove } = tempRoot("awr-change-kill-"));
    file = join(root, "work-ledger.yaml");
    writeFileSync(file, CHANGE_LEDGER);
    const manifest = join(root, "project.toml");
    writeFileSync(manifest, CHANGE_MANIFEST);
    schema = `awr_chg_${ulid().toLowerCase()}`;
    appendFileSync(manifest, storageManifestTable(backend, schema));
    await initProject({ root, manifest, accept: true });
    ledger = await openLedger({ root });
  }, 60_000);
  afterEach(async () => {
    await dropServerSchema(ledgerStore(ledger).db, backend, schema);
    await ledger.close();
    remove();
  });

  const call = (tool: string, input: Answer) => ledger.execute(tool, input, ME) as Promise<Answer>;
  /** Recovers the change journaled under `requestId`, expecting the project at `revision`. */
  const recover = (requestId: string, kind: string, revision: number) =>
    call("awr_change_recover", { request_id: requestId, kind, expected_revision: revision });
  /** The change journaled under `requestId`, as awr_change_status answers it. */
  const statusOf = (requestId: string, kind: string) =>
    call("awr_change_status", { request_id: requestId, kind });

  /** Previews the change here, then applies it in a child killed at `fault`. */
  async function killedApply(
    requestId: string,
    fault: string,
    change: Answer = { kind: "work_edit", work: "W-1", fields: { next_action: "Test it" } },
  ): Promise<Answer> {
    const revision = await ledger.revision();
    const preview = await call("awr_change_preview", {
      request_id: requestId,
      reason: REASON,
      change,
    });
    const input = {
      request_id: requestId,
      reason: REASON,
      change: preview["change"] ?? change,
      expected_revision: revision,
      expected_preview:
        preview["preview_fingerprint"] ?? (preview["preview"] as Answer)["fingerprint"],
    };
    const env = { ...process.env };
    delete env[FAULT_ENV];
    const exit = await new Promise<{ signal: NodeJS.Signals | null; out: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          WRITER,
          JSON.stringify({
            entry: build.entry,
            testingEntry: build.testingEntry,
            root,
            fault,
            input,
          }),
        ],
        { env, stdio: ["ignore", "pipe", "inherit"] },
      );
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
      });
      child.on("close", (_code, signal) => resolve({ signal, out }));
    });
    expect(exit.signal, exit.out).toBe("SIGKILL");
    return input;
  }

  it("killed after the journal entry: nothing written, recovered once", async () => {
    const revision = await ledger.revision();
    const input = await killedApply("kill-prepared", "change_after_prepare");
    expect(readFileSync(file, "utf8")).toBe(CHANGE_LEDGER);
    expect(await statusOf("kill-prepared", "work_edit")).toMatchObject({
      found: true,
      ok: false,
      status: "pending_recovery",
      phase: "prepared",
      phases: ["prepared"],
      current_source: "before",
    });
    // A retry of the apply does not run it again: it points at recovery.
    const retry = await ledgerFailure(call("awr_change_apply", input));
    expect(retry.code).toBe("MutationConflict");
    expect(retry.result).toMatchObject({
      status: "pending_recovery",
      recovery_tool: "awr_change_recover",
    });

    const recovered = await recover("kill-prepared", "work_edit", revision);
    expect(recovered).toMatchObject({
      status: "completed",
      phases: ["prepared", "source_written", "reindexed"],
      source_write_performed: true,
      project_revision: revision + 1,
    });
    expect(readFileSync(file, "utf8")).toBe(AFTER);
    // Settled: apply replays it, recover answers it, nothing is written again.
    expect(await call("awr_change_apply", input)).toMatchObject({
      status: "completed",
      historical_outcome: true,
    });
    expect(await recover("kill-prepared", "work_edit", revision + 1)).toMatchObject({
      status: "completed",
      source_write_performed: false,
      runtime_write_performed: false,
    });
    expect(await ledger.revision()).toBe(revision + 1);
    expect(readFileSync(file, "utf8")).toBe(AFTER);
  }, 60_000);

  it("killed after the source write: status answers while stale, recovery reindexes without writing", async () => {
    const revision = await ledger.revision();
    await killedApply("kill-written", "change_after_source_write");
    expect(readFileSync(file, "utf8")).toBe(AFTER);
    // The projection reads refuse the stale source; the change's status still answers.
    expect((await ledgerFailure(call("awr_work_get", { work: "W-1" }))).code).toBe("SourceStale");
    expect(await statusOf("kill-written", "work_edit")).toMatchObject({
      status: "pending_recovery",
      phase: "source_written",
      phases: ["prepared", "source_written"],
      current_source: "after",
    });
    const recovered = await recover("kill-written", "work_edit", revision);
    expect(recovered).toMatchObject({
      status: "completed",
      source_write_performed: false,
      project_revision: revision + 1,
    });
    expect(readFileSync(file, "utf8")).toBe(AFTER);
    expect(JSON.stringify(await call("awr_work_get", { work: "W-1" }))).toContain("Test it");
  }, 60_000);

  it("keeps an edit made outside after the kill, and stops the change instead of writing", async () => {
    const revision = await ledger.revision();
    await killedApply("kill-edited", "change_after_prepare");
    const theirs = CHANGE_LEDGER.replace("priority: low", "priority: urgent");
    writeFileSync(file, theirs);
    const stopped = await ledgerFailure(recover("kill-edited", "work_edit", revision));
    expect(stopped.code).toBe("SourceConflict");
    expect(stopped.result).toMatchObject({
      status: "requires_review",
      source_write_performed: false,
    });
    expect(readFileSync(file, "utf8")).toBe(theirs);
    expect(await statusOf("kill-edited", "work_edit")).toMatchObject({
      status: "requires_review",
      write_outcome: "stopped",
      current_source: "externally_changed",
    });
    // Settled as stopped: recovering again writes nothing and says so.
    const again = await ledgerFailure(recover("kill-edited", "work_edit", revision));
    expect(again.code).toBe("SourceConflict");
    expect(again.result).toMatchObject({ status: "requires_review", historical_outcome: true });
    expect(readFileSync(file, "utf8")).toBe(theirs);
    expect(await ledger.revision()).toBe(revision);
  }, 60_000);

  /** A batch of the change ledger: W-1's next step, and a new draft depending on it. */
  async function batchChange(): Promise<Answer> {
    const sources = (await call("awr_source_list", {})) as { sources?: Answer[] };
    const fp = (sources.sources ?? []).find((s) => s["path"] === "work-ledger.yaml")?.[
      "fingerprint"
    ];
    return {
      kind: "batch",
      change: {
        kind: "ledger",
        source_id: "work-ledger.yaml",
        source_fingerprint: fp,
        operations: [
          { operation: "fields", target: "W-1", fields: { next_action: "Test it" } },
          {
            operation: "import",
            external_key: "N-1",
            title: "Next",
            fields: { depends_on: ["W-1"] },
          },
        ],
      },
    };
  }

  it("a batch killed after its source write: honest status, recovered without writing twice", async () => {
    const revision = await ledger.revision();
    const input = await killedApply("kill-batch", "change_after_source_write", await batchChange());
    const written = readFileSync(file, "utf8");
    expect(written.startsWith(AFTER)).toBe(true);
    expect(written.slice(AFTER.length)).toContain("N-1");
    expect(await statusOf("kill-batch", "batch")).toMatchObject({
      status: "pending_recovery",
      phase: "source_written",
      current_source: "after",
      applied_files: [0],
      file_total: 1,
      partial_apply: true,
      filesystem_atomic: false,
    });
    const retry = await ledgerFailure(call("awr_change_apply", input));
    expect(retry.code).toBe("MutationConflict");
    const recovered = await recover("kill-batch", "batch", revision);
    expect(recovered).toMatchObject({
      status: "completed",
      source_write_performed: false,
      project_revision: revision + 1,
      partial_apply: false,
    });
    expect(readFileSync(file, "utf8")).toBe(written);
    expect(JSON.stringify(await call("awr_work_get", { work: "N-1" }))).toContain("W-1");
  }, 60_000);

  it("a batch killed after its journal entry: recovery writes it once, or keeps an outside edit", async () => {
    const revision = await ledger.revision();
    await killedApply("kill-batch-p", "change_after_prepare", await batchChange());
    expect(readFileSync(file, "utf8")).toBe(CHANGE_LEDGER);
    const recovered = await recover("kill-batch-p", "batch", revision);
    expect(recovered).toMatchObject({ status: "completed", source_write_performed: true });
    const written = readFileSync(file, "utf8");
    expect(written.startsWith(AFTER)).toBe(true);
    expect(await recover("kill-batch-p", "batch", revision + 1)).toMatchObject({
      status: "completed",
      source_write_performed: false,
    });
    expect(readFileSync(file, "utf8")).toBe(written);

    // Another batch killed before its write, then the ledger edited outside: kept, stopped.
    const second = await ledger.revision();
    await killedApply(
      "kill-batch-e",
      "change_after_prepare",
      await batchChange().then((c) => {
        const inner = c["change"] as Answer;
        return {
          ...c,
          change: {
            ...inner,
            operations: [{ operation: "fields", target: "W-1", fields: { next_action: "Again" } }],
          },
        };
      }),
    );
    const theirs = `${written}# edited outside\r\n`;
    writeFileSync(file, theirs);
    const stopped = await ledgerFailure(recover("kill-batch-e", "batch", second));
    expect(stopped.code).toBe("SourceConflict");
    expect(readFileSync(file, "utf8")).toBe(theirs);
  }, 60_000);
});
