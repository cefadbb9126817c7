import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initProject } from "@awr/awr-ledger";
import pg from "pg";
import { type AwrRun, runAwr } from "./awr-process.js";
import { type IsolationBackend, PG_URL, perBackend } from "./backends.js";
import { type Contender, startContender } from "./contender.js";
import { type DatabaseLocation, type Snapshot, snapshot } from "./snapshot.js";

/**
 * The fixture project (our own text): one goal, one rule, and a YAML ledger with two ready work
 * items, W and X. Sessions, claims and events are what the conditions create on top of it.
 */
const WORK = `work_items:
  - id: W
    title: Reconcile the warehouse counts
    status: ready
    next_action: Compare the two stock lists
    acceptance: [The counts agree]
  - id: X
    title: Label the returned parcels
    status: ready
    next_action: Print the return labels
    acceptance: [Every parcel is labelled]
`;
const GOALS =
  "# Goals\n\n## Accurate stock {#stock status=active}\n\nThe stock list matches the shelves.\n";
const RULES =
  "# Rules\n\n## Count twice {#count-twice severity=hard}\n\nEvery count is repeated by a second person.\n";

function manifest(schema: string | undefined): string {
  const storage =
    schema === undefined
      ? ""
      : `\n[storage]\nbackend = "postgres"\nurl_env = "AWR_TEST_DATABASE_URL"\nschema = "${schema}"\n`;
  return `[project]\nname = "isolation"\n${storage}
[[sources]]
domain = "work"
role = "primary"
path = "work.yaml"
adapter = "yaml-ledger-v1"

[[sources]]
domain = "rule"
role = "primary"
path = "RULES.md"
adapter = "markdown-rules-v1"

[[sources]]
domain = "goal"
role = "primary"
path = "GOALS.md"
adapter = "markdown-heading-v1"
`;
}

/** The arguments every awr_session_start of the suite shares besides work, conversation, branch. */
export const AGENT = { agent: "stock-agent", provider: "fixture", model: "none" } as const;

/** One condition's world: a fresh project on one backend, its processes, and its observation. */
export interface IsolationCase {
  readonly backend: IsolationBackend;
  readonly root: string;
  readonly projectId: string;
  /** Where the project's database is (for the fault trigger of condition 12). */
  readonly location: DatabaseLocation;
  /**
   * A live awr-mcp process on this project (closed with the case, even while starting); every
   * second one a case starts calls through the grouped domains.
   */
  contender(label: string): Promise<Contender>;
  /** `label` contenders, started side by side; their pids are checked to differ. */
  contenders(...labels: string[]): Promise<Contender[]>;
  /** One `awr --project ROOT --json ...` process. */
  awr(...args: string[]): Promise<AwrRun>;
  /** Like awr(), but the run must exit 0; returns its JSON. */
  awrOk<T = Record<string, unknown>>(...args: string[]): Promise<T>;
  snapshot(): Promise<Snapshot>;
  /** The project revision, read from the database. */
  revision(): Promise<number>;
  close(): Promise<void>;
}

let caseCount = 0;

export async function openCase(backend: IsolationBackend): Promise<IsolationCase> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), `awr-isolation-${backend}-`)));
  const root = join(dir, "project");
  const schema = perBackend(backend, {
    sqlite: undefined,
    postgres: `awr_iso_${process.pid}_${(caseCount++).toString(36)}_${Date.now().toString(36)}`,
  });
  await mkdir(root);
  await writeFile(join(root, "work.yaml"), WORK);
  await writeFile(join(root, "GOALS.md"), GOALS);
  await writeFile(join(root, "RULES.md"), RULES);
  await writeFile(join(dir, "project.toml"), manifest(schema));
  const init = await initProject({ root, accept: true, manifest: join(dir, "project.toml") });
  // Starts still in flight count too: a case may start its contenders early, beside its set-up,
  // and close() must not miss one that was still starting when the case failed.
  const processes: Promise<Contender>[] = [];
  const where: DatabaseLocation = { backend, root, url: PG_URL, schema };
  const self: IsolationCase = {
    backend,
    root,
    projectId: init.project_id as string,
    location: where,
    contender(label) {
      const path = processes.length % 2 === 0 ? "flat" : "domain";
      const started = startContender(root, label, path);
      processes.push(started);
      return started;
    },
    async contenders(...labels) {
      const started = await Promise.all(labels.map((label) => self.contender(label)));
      const pids = new Set(started.map((c) => c.pid));
      if (pids.size !== started.length) throw new Error(`contenders share a process: ${[...pids]}`);
      return started;
    },
    awr: (...args) => runAwr(root, args),
    async awrOk<T>(...args: string[]) {
      const run = await runAwr(root, args);
      if (run.code !== 0) {
        throw new Error(`awr ${args.join(" ")} exited ${run.code}:\n${run.stderr}${run.stdout}`);
      }
      return run.json<T>();
    },
    snapshot: () => snapshot(where),
    async revision() {
      const tables = (await snapshot(where)).tables;
      const state = JSON.parse(tables["project_state"]?.[0] ?? "{}") as { revision?: unknown };
      return Number(state.revision);
    },
    async close() {
      await Promise.allSettled(processes.map(async (p) => (await p).close()));
      if (schema !== undefined) {
        const admin = new pg.Client({ connectionString: PG_URL });
        await admin.connect();
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await admin.end();
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
  return self;
}

/** Runs `body` on a fresh case and always closes it (processes, schema, directory). */
export async function withCase(
  backend: IsolationBackend,
  body: (c: IsolationCase) => Promise<void>,
): Promise<void> {
  const c = await openCase(backend);
  try {
    await body(c);
  } finally {
    await c.close();
  }
}
