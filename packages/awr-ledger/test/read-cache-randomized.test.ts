// Cached reads against a full reload, with writers in two other processes (docs/design/
// read-caching.md). Two worker processes and this one keep one ledger open each for the whole run
// (their caches live throughout); a seeded random sequence of writes (journaled writes from either
// worker, direct in-place entity updates and reindexes of edited sources from this process) is
// interleaved with reads, and every read by every cached ledger must equal the same read by a
// ledger opened fresh for it (which loads everything from the database). Steps run one at a time,
// so each comparison is at one revision; which process wrote last is random.
import { type ChildProcess, fork } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { initProject, type Ledger, openLedger } from "@awr/awr-ledger";
import { ledgerStore, spendRevision } from "@awr/awr-ledger/testing";
import { generateFixtureProject } from "@awr/ledger-fixtures";
import { ulid } from "ulid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, storageManifestTable } from "./helpers/backends.js";
import { buildPackageForChildren } from "./helpers/child-build.js";

const WORKER = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "read-cache-worker.mjs");
const STEPS = process.env.AWR_CHAOS_FULL === "1" ? 1500 : 400;
const SEED = Number(process.env.AWR_TEST_SEED ?? 20261201);
const CALLER = { client: "stdio" };

type Outcome =
  | { ok: true; result: Record<string, unknown> }
  | { ok: false; code: string; message: string };

/** One of the two worker processes. */
class Worker {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, (outcome: Outcome) => void>();
  readonly ready: Promise<void>;
  #next = 0;

  constructor(entry: string, root: string) {
    this.#child = fork(WORKER, [entry, root], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    this.ready = new Promise((resolve, reject) => {
      this.#child.once("exit", (code) => reject(new Error(`worker exited (${code})`)));
      this.#child.on("message", (message: { ready?: boolean; id?: number } & Outcome) => {
        if (message.ready) resolve();
        else this.#pending.get(message.id as number)?.(message);
      });
    });
  }

  call(tool: string, input: Record<string, unknown>, write: boolean): Promise<Outcome> {
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.#child.send({ id, tool, input, write });
    });
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.#child.once("exit", () => resolve());
      this.#child.disconnect();
    });
  }
}

/** mulberry32: the same seed gives the same run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function outcomeOf(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, result: (await run()) as Record<string, unknown> };
  } catch (error) {
    const e = error as { code?: string; message?: string };
    return { ok: false, code: e.code ?? "?", message: String(e.message) };
  }
}

/** Outcomes compare by result, or by error code (messages may name revisions). */
const comparable = (o: Outcome) =>
  o.ok ? { ok: true, result: o.result } : { ok: false, code: o.code };

describe.each(BACKENDS)("cached reads under writers in other processes on %s", (backend) => {
  let build: ReturnType<typeof buildPackageForChildren>;
  let dir: string;
  let root: string;
  let works: string[];
  let workers: Worker[] = [];
  let local: Ledger;

  beforeAll(async () => {
    build = buildPackageForChildren();
    dir = mkdtempSync(join(tmpdir(), "awr-read-cache-"));
    const fixture = generateFixtureProject(join(dir, "project"), { items: 40, seed: 5 });
    root = fixture.root;
    works = fixture.items.map((i) => i.work);
    appendFileSync(
      fixture.manifest_path,
      storageManifestTable(backend, `awr_rc_${ulid().toLowerCase()}`),
    );
    await initProject({ root, manifest: fixture.manifest_path, accept: true });
    local = await openLedger({ root });
    workers = [new Worker(build.entry, root), new Worker(build.entry, root)];
    await Promise.all(workers.map((w) => w.ready));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await local?.close();
    build?.remove();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it(`every read of a cached ledger equals a fresh ledger's (${STEPS} random steps, seed ${SEED})`, async () => {
    const random = prng(SEED);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    // Half the time one of a few items (early ones, which many others depend on), so that
    // writes and reads meet on the same items often.
    const pickWork = () => (random() < 0.5 ? pick(works.slice(0, 6)) : pick(works));
    const sessions = new Map<string, string>();
    const goals = ["goal#payments", "goal#search", "goal#nowhere"];
    const log: string[] = [];
    let added = 0;
    let reads = 0;

    /** A write from a random worker (or, with `direct`, this process's own ledger). */
    const journaled = async (tool: string, input: Record<string, unknown>) => {
      const worker = pick(workers);
      const outcome = await worker.call(tool, input, true);
      log.push(`${workers.indexOf(worker)} ${tool} ${JSON.stringify(input)} -> ${outcome.ok}`);
      return outcome;
    };

    /** An in-place update no tool makes (any writer of entities must be seen), plus a revision. */
    const directUpdate = async () => {
      const key =
        random() < 0.8 ? pick(works) : pick(["goal#payments", "goal#auth", "decision#d1"]);
      await ledgerStore(local).write(async (tx) => {
        await spendRevision(tx);
        const row = await tx
          .selectFrom("entities")
          .select(["attributes", "ordinal"])
          .where("key", "=", key)
          .executeTakeFirst();
        if (row === undefined) return;
        const attributes = JSON.parse(row.attributes) as Record<string, unknown>;
        if (key.startsWith("decision#")) attributes["work"] = [pickWork()];
        else {
          attributes["priority"] = pick(["high", "medium", "low", 1, 7, null]);
          attributes["goal"] = random() < 0.2 ? null : pick(goals.slice(-4));
          attributes["milestone"] = pick(["M1", "M9", null]);
          attributes["next_action"] = pick(["write it", null]);
        }
        const status = key.startsWith("goal#")
          ? pick(["active", "achieved"])
          : pick([
              "ready",
              "ready",
              "completed",
              "completed",
              "planned",
              "in_progress",
              "claimed",
              "unknown",
            ]);
        // Now and then the entity moves within its source: a structural change.
        const ordinal = random() < 0.05 ? Number(row.ordinal) + 1000 : Number(row.ordinal);
        await tx
          .updateTable("entities")
          .set({ status, attributes: JSON.stringify(attributes), ordinal })
          .where("key", "=", key)
          .execute();
      });
      log.push(`direct update ${key}`);
    };

    /** Edits a source and reindexes it: entities and dependencies are added. */
    const editAndReindex = async () => {
      added++;
      if (random() < 0.5) {
        appendFileSync(
          join(root, "GOALS.md"),
          `\n## Extra goal ${added} {#extra-${added} status=active}\n\nMore to do.\n`,
        );
        goals.push(`goal#extra-${added}`);
      } else {
        const key = `NEW-${added}`;
        appendFileSync(
          join(root, "work-ledger.yaml"),
          `  - id: ${key}\n    title: new work ${added}\n    status: ready\n    priority: high\n` +
            `    goal: goal#payments\n    depends_on:\n      - ${pick(works)}\n`,
        );
        works.push(key);
      }
      const outcome = await journaled("awr_source_reindex", {});
      expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    };

    const write = async () => {
      const work = pickWork();
      const choice = random();
      if (choice < 0.15)
        await journaled("awr_event_append", { event_type: "test.note", summary: `note ${work}` });
      else if (choice < 0.25) {
        const external_key = `ev-${ulid()}`;
        const summary = `verified ${pick(["payment", "invoice", "search"])} for ${work}`;
        const input = {
          external_key,
          evidence_type: "test",
          level: "locally_verified",
          summary,
          locator: "https://ci.example/run/1",
          scope: [work],
          work,
        };
        await journaled("awr_evidence_record", input);
      } else if (choice < 0.4) {
        const input = {
          work,
          conversation: `c-${ulid()}`,
          agent: "a",
          provider: "p",
          model: "m",
          claim: true,
        };
        const outcome = await journaled("awr_session_start", input);
        if (outcome.ok) sessions.set(work, (outcome.result["session"] as { id: string }).id);
      } else if (choice < 0.7) {
        const action = pick(["progress", "block", "unblock", "cancel", "reopen", "complete"]);
        const session = sessions.get(work);
        await journaled("awr_work_transition", {
          work,
          action,
          reason: `${action} ${work}`,
          ...(session === undefined ? {} : { session }),
          ...(action === "block" ? { blocker: "waiting" } : {}),
        });
      } else if (choice < 0.96) await directUpdate();
      else await editAndReindex();
    };

    const readRequest = (): [string, Record<string, unknown>] => {
      const work = pickWork();
      switch (Math.floor(random() * 5)) {
        case 0:
          return ["awr_project_status", { view: "full" }];
        case 1:
          return ["awr_work_ready", { limit: 1 + Math.floor(random() * 30) }];
        case 2:
          return ["awr_work_get", { work: random() < 0.05 ? "NOPE-1" : work }];
        case 3:
          return [
            "awr_search",
            pick<Record<string, unknown>>([
              { text: pick(["payment", "invoice search", "verified", "note"]) },
              { text: pick(["verified", "payment", "note"]), work },
              {
                text: pick(["payment", "invoice"]),
                kind: pick(["work_item", "evidence", "event"]),
              },
            ]),
          ];
        default:
          return ["awr_context_compile", { work, budget: 3000 }];
      }
    };

    for (let step = 0; step < STEPS; step++) {
      if (random() < 0.55) {
        await write();
        continue;
      }
      const [tool, input] = readRequest();
      const fresh = await openLedger({ root });
      const expected = comparable(await outcomeOf(() => fresh.execute(tool, input, CALLER)));
      await fresh.close();
      const got = [
        comparable(await workers[0]!.call(tool, input, false)),
        comparable(await workers[1]!.call(tool, input, false)),
        comparable(await outcomeOf(() => local.execute(tool, input, CALLER))),
      ];
      reads++;
      for (const [who, outcome] of got.entries()) {
        expect(
          outcome,
          `step ${step}, reader ${who}, ${tool} ${JSON.stringify(input)}\n${log.slice(-12).join("\n")}`,
        ).toEqual(expected);
      }
    }
    expect(reads).toBeGreaterThan(STEPS / 3);
    expect(log.filter((l) => l.includes("-> true")).length).toBeGreaterThan(STEPS / 10);
  }, 600_000);
});
