import { isAbsolute, resolve } from "node:path";
import type { Kysely } from "kysely";
import { LIMITS } from "../core/limits.js";
import type { RuntimeContext } from "../core/runtime-context.js";
import { LedgerError } from "../errors.js";
import { StaleChecker } from "../projection/stale-check.js";
import { type LoadedManifest, MANIFEST_PATH } from "../sources/read-sources.js";
import type { DatabaseReport } from "../storage/database-doctor.js";
import { LedgerStore } from "../storage/ledger-store.js";
import { inReadSnapshot } from "../storage/read-clock.js";
import type { LedgerSchema } from "../storage/schema.js";
import { inspectDatabase } from "./doctor-database.js";
import { type DoctorFinding, finding } from "./doctor-finding.js";
import { inspectRuntime } from "./doctor-runtime.js";
import { checkSources, type IndexedSource } from "./doctor-sources.js";

/** What the doctor needs of the project (the catalog passes its LedgerContext). */
export interface DoctorProject {
  readonly root: string;
  /** Reads `.awr/project.toml` again with `reload`; throws when it cannot be read. */
  manifest(reload?: boolean): LoadedManifest;
}

/** `awr doctor`'s arguments (its flags). */
export interface DoctorInput {
  /** Another SQLite ledger file to inspect (SQLite projects only). */
  database?: string | undefined;
  /** Only the database and its schema: no sources, no runtime findings. */
  database_only?: boolean | undefined;
  /** The cap on hashing registered artifacts (1..1 GiB); validated only here. */
  max_bytes?: number | undefined;
}

/** The full report: the database report's fields flattened in, then the project's. */
export interface DoctorReport extends DatabaseReport {
  database_ok: boolean;
  read_only: true;
  source_refresh_performed: false;
  project_id: string | null;
  project_revision: number | null;
  observed_final_revision: number | null;
  /** Milliseconds since the epoch. */
  checked_at: number;
  findings: DoctorFinding[];
  sources_checked: number;
  artifacts_checked: number;
  limitations: string[];
}

const MAX_BYTES_LIMIT = LIMITS.doctorReadBytes.max;
export const DEFAULT_DOCTOR_MAX_BYTES = LIMITS.doctorReadBytes.default;

const LIMITATIONS = [
  "Active status and age do not prove process liveness; interrupting a session requires naming it (awr doctor repair interrupt-session).",
  "An unfinished journal entry may belong to a live writer; diagnosis neither completes nor recovers it.",
  "This ledger registers no artifacts: --max-bytes is validated, and no artifact is read.",
];
const OWN_LEDGER_LIMITATION =
  "The project's own ledger was opened as every command opens it (an older schema is brought up to date first); inspect a copy with --database to see a file exactly as it is.";
const NOT_INTACT_LIMITATION =
  "Explicit runtime repairs require database integrity first; no repair is suggested and no reference is reconstructed.";

function checkMaxBytes(value: number | undefined): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < 1 || value > MAX_BYTES_LIMIT) {
    throw new LedgerError(
      "InvalidInput",
      `doctor artifact read cap must be 1..${MAX_BYTES_LIMIT} bytes`,
      { field: "max_bytes", value },
    );
  }
}

/** What the doctor reads: the ledger's own database, or another ledger file (SQLite). */
async function withInspectedDatabase<T>(
  ctx: RuntimeContext,
  project: DoctorProject | undefined,
  database: string | undefined,
  fn: (db: Kysely<LedgerSchema>, own: boolean) => Promise<T>,
): Promise<T> {
  if (database === undefined) return fn(ctx.store.db, true);
  const file = isAbsolute(database) ? database : resolve(project?.root ?? ".", database);
  const db = ctx.store.dialect.doctor.openFile(file);
  try {
    return await fn(db, false);
  } finally {
    await db.destroy();
  }
}

/**
 * `awr doctor`: inspects the database, the runtime state and the sources in one read snapshot,
 * changing nothing (docs/design/work-branches.md, "awr doctor"). With `database_only` the answer
 * is the database report alone. `ok` is false when the database is not intact or any finding is
 * above `info`; the CLI then fails with Storage after printing the report.
 */
export async function diagnose(
  ctx: RuntimeContext,
  project: DoctorProject | undefined,
  input: DoctorInput,
): Promise<DoctorReport | DatabaseReport> {
  checkMaxBytes(input.max_bytes);
  const { dialect } = ctx.store;
  const projectId = ctx.store.projectId;
  return withInspectedDatabase(ctx, project, input.database, async (db, own) => {
    const checkedAt = ctx.now();
    const snapshot = await inReadSnapshot(db, async (tx) => {
      const database = await inspectDatabase(tx, dialect);
      if (input.database_only === true) return { database };
      if (database.integrity.length !== 1 || database.integrity[0] !== "ok") {
        const unavailable = finding(
          "runtime_checks_unavailable",
          "error",
          "database",
          "integrity",
          "Runtime/file checks require readable database pages; no repair or migration was attempted.",
        );
        return { database, blocked: unavailable };
      }
      if (database.schema_issues.length > 0) {
        const unavailable = finding(
          "runtime_checks_unavailable",
          "error",
          "database",
          "schema",
          `AWR schema mismatch: ${database.schema_issues.join("; ")}`,
        );
        return { database, blocked: unavailable };
      }
      const runtime = await inspectRuntime(tx, projectId, checkedAt);
      const sources: IndexedSource[] = await tx
        .selectFrom("sources")
        .select(["path", "domain", "role", "adapter", "fingerprint"])
        .orderBy("path")
        .execute();
      return { database, runtime, sources };
    });
    const { database } = snapshot;
    if (input.database_only === true) return database;
    const report: DoctorReport = {
      ...database,
      database_ok: database.ok,
      read_only: true,
      source_refresh_performed: false,
      project_id: null,
      project_revision: null,
      observed_final_revision: null,
      checked_at: checkedAt,
      findings: [],
      sources_checked: 0,
      artifacts_checked: 0,
      limitations: [
        ...LIMITATIONS,
        ...dialect.doctor.limitations,
        ...(own ? [OWN_LEDGER_LIMITATION] : []),
      ],
    };
    const findings: DoctorFinding[] = [];
    if ("blocked" in snapshot && snapshot.blocked !== undefined) {
      report.database_ok = false;
      findings.push(snapshot.blocked);
    } else if ("runtime" in snapshot && snapshot.runtime === undefined) {
      report.database_ok = false;
      findings.push(
        finding(
          "project_unavailable",
          "error",
          "project",
          projectId,
          `the database holds no project state for project ${projectId}; check that it is this project's ledger`,
        ),
      );
    } else if ("runtime" in snapshot && snapshot.runtime !== undefined) {
      report.project_id = projectId;
      report.project_revision = snapshot.runtime.project_revision;
      findings.push(...snapshot.runtime.findings);
      if (project !== undefined) {
        const store = own ? ctx.store : new LedgerStore(db, ctx.store.dialect, projectId);
        const checked = await inspectSources(project, store, snapshot.sources);
        findings.push(...checked.findings);
        report.sources_checked = checked.checked;
      }
      const final = await new LedgerStore(db, ctx.store.dialect, projectId).currentRevision();
      report.observed_final_revision = final;
      if (final !== report.project_revision) {
        findings.push(
          finding(
            "concurrent_project_change",
            "warning",
            "project",
            projectId,
            "Project changed during inspection; rerun doctor for a consistent observation.",
          ),
        );
      }
    }
    findings.sort(byCodeKindId);
    if (!report.database_ok) {
      for (const f of findings) f.repair = null;
      report.limitations.push(NOT_INTACT_LIMITATION);
    }
    report.findings = findings;
    report.ok = report.database_ok && findings.every((f) => f.severity === "info");
    return report;
  });
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The order of findings: by code, object kind, then object id. */
function byCodeKindId(a: DoctorFinding, b: DoctorFinding): number {
  return (
    compare(a.code, b.code) ||
    compare(a.object_kind, b.object_kind) ||
    compare(a.object_id, b.object_id)
  );
}

/** The manifest's sources against the snapshot's index (source_* findings). */
async function inspectSources(
  project: DoctorProject,
  store: LedgerStore,
  indexed: readonly IndexedSource[],
): Promise<{ findings: DoctorFinding[]; checked: number }> {
  let manifest: LoadedManifest;
  try {
    manifest = project.manifest(true);
  } catch (error) {
    return {
      findings: [
        finding(
          "source_manifest_unavailable",
          "error",
          "manifest",
          MANIFEST_PATH,
          (error as Error).message,
        ),
      ],
      checked: 0,
    };
  }
  const scan = await new StaleChecker().scan(store, project.root, manifest.manifest, {
    explain: true,
  });
  return checkSources(
    project.root,
    manifest.manifest,
    indexed,
    new Set(scan.changed),
    new Map(scan.refused.map((r) => [r.path, r])),
  );
}
