import { spawn } from "node:child_process";
import { appendFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MIGRATIONS, storageDialect } from "@awr/awr-ledger/testing";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  CALLER,
  harnessPerCase,
  ledgerFailure,
  prepareDatabase,
  type RuntimeHarness,
  startSession,
} from "./fixtures/runtime/harness.js";
import {
  childPayload,
  PACKAGE_DIR,
  runWriteChild,
  WRITE_CHILD,
} from "./fixtures/runtime/run-write-child.js";
import { BACKENDS, freshDatabase } from "./helpers/backends.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

type Finding = {
  code: string;
  severity: string;
  object_kind: string;
  object_id: string;
  message: string;
  repair: Record<string, string> | null;
};
type Report = Record<string, unknown> & { ok: boolean; findings: Finding[] };

const doctor = async (h: RuntimeHarness, input: Record<string, unknown> = {}) =>
  (await h.runtime.execute("awr_doctor", input, CALLER)) as Report;
const codes = (report: Report) => report.findings.map((f) => f.code);

describe.each(BACKENDS)("awr doctor's report on %s", (backend) => {
  const h = harnessPerCase(backend);

  it("reports a healthy ledger: the database fields, no findings, ok", async () => {
    const report = await doctor(h);
    expect(report).toMatchObject({
      ok: true,
      database_ok: true,
      read_only: true,
      source_refresh_performed: false,
      integrity: ["ok"],
      foreign_key_violations: 0,
      schema_issues: [],
      project_id: h.projectId,
      project_revision: 0,
      observed_final_revision: 0,
      findings: [],
      artifacts_checked: 0,
    });
    const migrations = report["migrations"] as { version: number; name: string }[];
    expect(migrations.map((m) => m.version)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(migrations.map((m) => m.name)).toEqual(MIGRATIONS.map((m) => m.name));
    expect(report["schema_version"]).toBe(MIGRATIONS.length);
    storageDialect(backend).choose({
      sqlite: () => {
        expect(report).toMatchObject({
          journal_mode: "wal",
          foreign_keys: true,
          busy_timeout_ms: 5000,
        });
        expect(report["sqlite_version"]).toMatch(/^3\.\d+\.\d+$/);
      },
      postgres: () => {
        expect(report).toMatchObject({
          sqlite_version: null,
          journal_mode: null,
          application_id: null,
        });
        expect((report["limitations"] as string[]).join(" ")).toContain("PostgreSQL");
      },
    })();
  });

  it("lists an active session as info with its interrupt repair, and stays ok", async () => {
    const { session } = await startSession(h, { work: "W-1", conversation: "c-1" });
    const report = await doctor(h);
    expect(report.ok).toBe(true);
    expect(report.findings).toEqual([
      {
        code: "active_session",
        severity: "info",
        object_kind: "session",
        object_id: session.id,
        message:
          "Session is active in the database; process liveness was not inspected, so death cannot be inferred",
        repair: { kind: "interrupt_session", session_id: session.id },
      },
    ]);
  });

  it("warns of an active claim past its deadline, with the expire repair", async () => {
    const started = await startSession(h, {
      work: "W-1",
      conversation: "c-1",
      claim: true,
      ttl_ms: 60_000,
    });
    const claim = started.claim as { id: string; expires_at: number };
    h.clock.now += 120_000;
    const report = await doctor(h);
    expect(report.ok).toBe(false);
    expect(report.findings.find((f) => f.code === "expired_claim")).toEqual({
      code: "expired_claim",
      severity: "warning",
      object_kind: "claim",
      object_id: claim.id,
      message: `Active claim expired at ${claim.expires_at}; no automatic repair was applied`,
      repair: { kind: "expire_claim", claim_id: claim.id },
    });
  });

  it("calls a session on finished work an orphan, and a claim without its session invalid", async () => {
    const { session } = await startSession(h, { work: "W-1", conversation: "c-1", claim: true });
    await h.database.db
      .updateTable("entities")
      .set({ status: "completed" })
      .where("key", "=", "W-1")
      .execute();
    await h.database.db
      .insertInto("claims")
      .values({
        id: "C-LOST",
        work: "W-2",
        session: "S-GONE",
        client: "stdio",
        status: "active",
        ttl_ms: null,
        expires_at: null,
        acquired_revision: 1,
        ended_revision: null,
        acquired_at: new Date(h.clock.now).toISOString(),
        ended_at: null,
      })
      .execute();
    const report = await doctor(h);
    const orphan = report.findings.find((f) => f.code === "orphan_session");
    expect(orphan).toMatchObject({
      severity: "error",
      object_id: session.id,
      message:
        "Active session has inconsistent bindings: bound work item is terminal or unusable (completed)",
      repair: { kind: "interrupt_session", session_id: session.id },
    });
    const invalid = report.findings.filter((f) => f.code === "invalid_claim");
    expect(invalid.map((f) => f.object_id)).toContain("C-LOST");
    expect(invalid.find((f) => f.object_id === "C-LOST")?.message).toBe(
      "Claim has inconsistent bindings or state: owning session S-GONE is missing",
    );
    // The session's own claim on completed work is invalid too, and no repair is offered for it.
    expect(invalid.every((f) => f.repair === null)).toBe(true);
    expect(invalid).toHaveLength(2);
  });

  it("flags a session pointing at a checkpoint that does not exist", async () => {
    const { session } = await startSession(h, { work: "W-1", conversation: "c-1" });
    await h.database.db
      .updateTable("sessions")
      .set({ last_checkpoint: "K-NONE" })
      .where("id", "=", session.id)
      .execute();
    const report = await doctor(h);
    expect(report.findings.find((f) => f.code === "invalid_checkpoint_pointer")).toMatchObject({
      object_kind: "session",
      object_id: session.id,
      message: "Session last_checkpoint_id points to a missing checkpoint: K-NONE",
    });
  });

  it("names a required dependency on work that is not indexed, and an edge whose source is gone", async () => {
    await h.seed([
      { key: "W-3", status: "planned", depends_on: [{ key: "W-404", required: true }] },
      { key: "W-4", status: "planned", depends_on: [{ key: "W-1", required: true }] },
    ]);
    // W-3's edge has its source; W-4's names a source that is not indexed.
    await h.database.db
      .insertInto("sources")
      .values({
        path: "work-ledger.yaml",
        domain: "work",
        role: "primary",
        adapter: "yaml-ledger-v1",
        fingerprint: "sha256:x",
        size: 1,
        mtime_ms: 1,
        indexed_revision: 0,
        entity_count: 4,
        kind: "file",
        note: null,
      })
      .execute();
    await h.database.db
      .updateTable("dependencies")
      .set({ source_path: "gone.yaml" })
      .where("work_key", "=", "W-4")
      .execute();
    const report = await doctor(h);
    expect(report.findings.filter((f) => f.object_kind === "edge")).toEqual([
      expect.objectContaining({
        code: "dangling_edge",
        object_id: "W-4 depends_on W-1",
        message: "edge source is missing or inactive",
      }),
      expect.objectContaining({
        code: "missing_dependency",
        severity: "error",
        object_id: "W-3 depends_on W-404",
        message: "target work_item:W-404 is missing or retired",
      }),
    ]);
  });

  it("warns of a journal entry still started", async () => {
    await h.database.db
      .insertInto("operations")
      .values({
        id: "O-1",
        client: "stdio",
        request_id: "req-1",
        tool: "awr_event_append",
        fingerprint: "f",
        arguments: "{}",
        status: "started",
        write_outcome: null,
        result: null,
        error: null,
        recovered: 0,
        started_revision: 1,
        finished_revision: null,
        started_at: new Date(h.clock.now).toISOString(),
        finished_at: null,
      })
      .execute();
    const report = await doctor(h);
    expect(report.findings).toEqual([
      expect.objectContaining({
        code: "unfinished_operation",
        severity: "warning",
        object_id: "O-1",
      }),
    ]);
    expect(report.findings[0]?.message).toContain("awr operation get req-1");
  });

  it("sorts findings by code, object kind and id", async () => {
    await startSession(h, { work: "W-2", conversation: "c-2", claim: true, ttl_ms: 1000 });
    await startSession(h, { work: "W-1", conversation: "c-1" });
    h.clock.now += 5000;
    const report = await doctor(h);
    const keys = report.findings.map((f) => [f.code, f.object_kind, f.object_id].join(" "));
    expect(keys).toEqual([...keys].sort());
    expect(codes(report)).toEqual(["active_session", "active_session", "expired_claim"]);
  });

  it("stops at a schema that is not this build's: the issue by name, runtime checks unavailable, no repairs", async () => {
    await startSession(h, { work: "W-1", conversation: "c-1" });
    await sql`DROP INDEX claims_session`.execute(h.database.db);
    const report = await doctor(h);
    expect(report).toMatchObject({
      ok: false,
      database_ok: false,
      schema_issues: ["missing index claims_session"],
    });
    expect(report.findings).toEqual([
      expect.objectContaining({
        code: "runtime_checks_unavailable",
        object_kind: "database",
        object_id: "schema",
        repair: null,
      }),
    ]);
    const only = (await doctor(h, { database_only: true })) as Report;
    expect(only.ok).toBe(false);
    expect(only.findings).toBeUndefined();
  });

  it("finds no project state for this project", async () => {
    await h.database.db.deleteFrom("project_state").execute();
    const report = await doctor(h);
    expect(report.ok).toBe(false);
    expect(report.findings).toEqual([
      expect.objectContaining({
        code: "project_unavailable",
        object_kind: "project",
        object_id: h.projectId,
      }),
    ]);
  });

  it("answers the database report alone with database_only", async () => {
    const only = (await doctor(h, { database_only: true })) as Report;
    expect(only).toMatchObject({ ok: true, integrity: ["ok"], schema_issues: [] });
    expect(Object.keys(only)).not.toContain("findings");
  });

  it("refuses a read cap outside 1..1 GiB with the original's message", async () => {
    for (const max_bytes of [0, 1024 * 1024 * 1024 + 1]) {
      const error = await ledgerFailure(doctor(h, { max_bytes }));
      expect(error.code).toBe("InvalidInput");
      expect(error.message).toBe("doctor artifact read cap must be 1..1073741824 bytes");
    }
    expect((await doctor(h, { max_bytes: 1 })).ok).toBe(true);
  });

  it("calls the database intact after another process wrote to its full-text tables", async () => {
    // The first report caches each full-text table's structure on this connection; the next
    // one must not compare the other process's rows against that stale copy.
    expect((await doctor(h)).ok).toBe(true);
    const exit = await runWriteChild(h, { mode: "once", requestId: "beside-1", tag: "beside" });
    expect(exit.code, exit.stderr).toBe(0);
    const report = await doctor(h);
    expect(report).toMatchObject({ ok: true, database_ok: true, integrity: ["ok"] });
    expect(report["observed_final_revision"]).toBeGreaterThan(0);
  });

  it("reports a revision that moved during the inspection (a competing writer process)", async () => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        WRITE_CHILD,
        childPayload(h, { mode: "loop", count: 100_000, tag: "doctor-race" }),
      ],
      { cwd: PACKAGE_DIR, stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    child.stderr?.on("data", (chunk) => {
      stderr = (stderr + String(chunk)).slice(-2000);
    });
    let exitCode: number | null | undefined;
    const exited = new Promise((resolve) => child.on("close", resolve));
    void exited.then(() => {
      exitCode = child.exitCode;
    });
    try {
      let seen: Report | undefined;
      while (seen === undefined && exitCode === undefined) {
        const report = await doctor(h);
        if (codes(report).includes("concurrent_project_change")) seen = report;
        // On SQLite every step above settles in microtasks: without a turn of the event loop
        // the child's exit (and the test's timeout) would never be noticed.
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(seen, `the writer exited (${exitCode}) first: ${stderr}`).toBeDefined();
      expect(seen?.findings.find((f) => f.code === "concurrent_project_change")).toMatchObject({
        severity: "warning",
        object_kind: "project",
      });
      expect(seen?.["observed_final_revision"]).toBeGreaterThan(
        seen?.["project_revision"] as number,
      );
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
  }, 60_000);

  const insertBranch = (id: string, status: string, extra: Record<string, unknown> = {}) =>
    h.database.db
      .insertInto("branches")
      .values({
        id,
        name: `name-${id}`,
        parent_branch_id: null,
        git_ref: null,
        fork_revision: 0,
        status,
        revision: 1,
        created_revision: 0,
        created_at: new Date(h.clock.now).toISOString(),
        closed_revision: null,
        closed_at: null,
        ...extra,
      })
      .execute();

  it("calls a closed selected branch, and a missing one, invalid with the clear repair", async () => {
    await insertBranch("B-CLOSED", "merged");
    await insertBranch("B-FUTURE", "active", { fork_revision: 99 });
    await h.database.db
      .updateTable("project_state")
      .set({ current_branch_id: "B-CLOSED" })
      .execute();
    const report = await doctor(h);
    expect(report.findings.filter((f) => f.code === "invalid_branch")).toEqual([
      {
        code: "invalid_branch",
        severity: "error",
        object_kind: "branch",
        object_id: "B-CLOSED",
        message: "current branch is merged",
        repair: { kind: "clear_invalid_branch", branch_id: "B-CLOSED" },
      },
      expect.objectContaining({
        object_id: "B-FUTURE",
        message: "active branch forks from a future project revision",
        repair: null,
      }),
    ]);
    await h.database.db.updateTable("project_state").set({ current_branch_id: "B-GONE" }).execute();
    const missing = await doctor(h);
    expect(missing.findings.find((f) => f.object_id === "B-GONE")).toMatchObject({
      message: "Project current_branch_id points to a missing branch",
      repair: { kind: "clear_invalid_branch", branch_id: "B-GONE" },
    });
  });

  it("calls a session and a claim on a closed branch an orphan and invalid", async () => {
    const started = await startSession(h, { work: "W-1", conversation: "c-1", claim: true });
    await insertBranch("B-OLD", "abandoned");
    await h.database.db.updateTable("sessions").set({ branch: "B-OLD" }).execute();
    await h.database.db.updateTable("claims").set({ branch: "B-OLD" }).execute();
    const report = await doctor(h);
    expect(report.findings.find((f) => f.code === "orphan_session")).toMatchObject({
      object_id: started.session.id,
      message: "Active session has inconsistent bindings: bound branch is abandoned",
    });
    expect(report.findings.find((f) => f.code === "invalid_claim")).toMatchObject({
      message: "Claim has inconsistent bindings or state: branch is not active",
    });
  });

  storageDialect(backend).choose({
    postgres: () =>
      it("refuses --database on a PostgreSQL project", async () => {
        const error = await ledgerFailure(doctor(h, { database: "/tmp/other.db" }));
        expect(error.code).toBe("InvalidInput");
        expect(error.message).toContain("PostgreSQL");
      }),
    sqlite: () =>
      it("inspects another SQLite file read-only with --database", async () => {
        const other = await freshDatabase("sqlite");
        try {
          await prepareDatabase(other, "P-OTHER");
          const report = await doctor(h, { database: other.location });
          expect(report.findings).toEqual([
            expect.objectContaining({ code: "project_unavailable", object_id: h.projectId }),
          ]);
          expect(report.schema_issues).toEqual([]);
          const missing = await ledgerFailure(doctor(h, { database: `${other.location}.missing` }));
          expect(missing.code).toBe("NotFound");
          writeFileSync(`${other.location}.txt`, "not a database");
          const garbage = await ledgerFailure(doctor(h, { database: `${other.location}.txt` }));
          expect(garbage.code).toBe("Storage");
        } finally {
          await other.close();
        }
      }),
  })();
});

describe.each(BACKENDS)("awr doctor on a project's sources on %s", (backend) => {
  let p: OpenProject;
  beforeEach(async () => {
    p = await openFixtureProject("basic", backend);
  });
  afterEach(() => p.close());
  const run = async () => (await p.ledger.execute("awr_doctor", {}, CALLER)) as Report;

  it("checks every manifest source of a freshly indexed project and finds nothing", async () => {
    const report = await run();
    expect(report).toMatchObject({ ok: true, sources_checked: 5, findings: [] });
  });

  it("names changed, missing, unselected and unindexed sources without reindexing", async () => {
    appendFileSync(join(p.root, "GOALS.md"), "\n## Another goal\n\nMore.\n");
    rmSync(join(p.root, "RULES.md"));
    const manifest = join(p.root, ".awr", "project.toml");
    const text = readFileSync(manifest, "utf8");
    writeFileSync(
      manifest,
      text.replace(/\[\[sources\]\]\s*domain = "decision"[^[]*/, "") +
        '\n[[sources]]\ndomain = "plan"\nrole = "supporting"\npath = "MORE.md"\nadapter = "markdown-heading-v1"\n',
    );
    writeFileSync(join(p.root, "MORE.md"), "# More\n");
    const before = await p.ledger.revision();
    const report = await run();
    expect(report.ok).toBe(false);
    const seen = report.findings.map((f) => `${f.code} ${f.object_id}`);
    expect(seen).toEqual([
      "source_access_failed RULES.md",
      "source_configuration_changed .awr/project.toml",
      "source_fingerprint_changed GOALS.md",
      "source_no_longer_selected DECISIONS.md",
      "source_not_indexed MORE.md",
    ]);
    expect(await p.ledger.revision()).toBe(before);
  });

  it("reports an unreadable manifest as source_manifest_unavailable", async () => {
    writeFileSync(join(p.root, ".awr", "project.toml"), "this is = = not toml");
    const report = await run();
    expect(report.findings.map((f) => f.code)).toContain("source_manifest_unavailable");
    expect(report.ok).toBe(false);
  });
});
