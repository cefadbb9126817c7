import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { LIMITS } from "@awr/awr-ledger";
import { ledgerStore } from "@awr/awr-ledger/testing";
import { afterEach, describe, expect, it } from "vitest";
import { BACKENDS } from "./helpers/backends.js";
import { ledgerFailure } from "./helpers/failures.js";
import { type OpenProject, openProjectAt } from "./helpers/projects.js";

// awr_work_graph through the ledger's dispatch: the closure around roots (dependents, then
// everything they require), missing required keys and required cycles answered explicitly,
// optional edges shown but never blocking, BudgetExceeded instead of a partial graph, and a
// fingerprint that follows the graph's structure only.

const caller = { client: "stdio" };

// The shared work-graph project (fixtures/work-graph, the CLI's graph tests read it too).
const FIXTURE = fileURLToPath(new URL("./fixtures/work-graph", import.meta.url));
const LEDGER = readFileSync(join(FIXTURE, "work-ledger.yaml"), "utf8");

/** A copy of the fixture project, its work ledger replaced by `ledger` when given. */
function writeProject(ledger?: string): { root: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), "awr-work-graph-"));
  cpSync(FIXTURE, root, { recursive: true });
  if (ledger !== undefined) writeFileSync(join(root, "work-ledger.yaml"), ledger);
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

// biome-ignore lint/suspicious/noExplicitAny: the answers are JSON, read field by field.
type Json = Record<string, any>;

describe.each(BACKENDS)("awr_work_graph on %s", (backend) => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });
  const open = async (ledger?: string) => {
    const { root, remove } = writeProject(ledger);
    p = await openProjectAt(root, join(root, "project.toml"), backend, remove);
    return p;
  };
  const graph = async (args: Json): Promise<Json> =>
    (await (p as OpenProject).ledger.execute("awr_work_graph", args, caller)) as Json;

  it("answers a root's dependents as affected and their required ancestors as nodes", async () => {
    await open();
    const result = await graph({ roots: ["API"] });
    expect(result["ok"]).toBe(true);
    expect(result["roots"]).toEqual(["API"]);
    expect(result["affected"]).toEqual(["API", "RELEASE", "UI"]);
    expect(result["nodes"].map((n: Json) => n.key)).toEqual(["API", "LIB", "RELEASE", "UI"]);
    // DOCS depends on UI only optionally: not affected, and its edge is not a node's.
    expect(result["edges"]).toEqual([
      expect.objectContaining({ from: "API", to: "LIB", required: true }),
      expect.objectContaining({ from: "RELEASE", to: "UI", required: true }),
      expect.objectContaining({ from: "UI", to: "API", required: true }),
    ]);
    const api = result["nodes"].find((n: Json) => n.key === "API");
    expect(api).toMatchObject({
      status: "ready",
      ready: true,
      archived: false,
      paths: ["src/api.ts"],
      diagnostics: [],
      active_claims: [],
      source_ref: {
        path: "work-ledger.yaml",
        source_fingerprint: expect.stringMatching(/^sha256:/),
      },
    });
    expect(result["nodes"].find((n: Json) => n.key === "UI")).toMatchObject({
      ready: false,
      diagnostics: [
        expect.objectContaining({ code: "status_not_ready" }),
        expect.objectContaining({ code: "required_dependency_incomplete" }),
      ],
    });
    expect(result).toMatchObject({
      missing_required: [],
      cycle: [],
      graph_valid: true,
      complete: true,
      execution_admitted: false,
      branch: null,
      sources: { "work-ledger.yaml": expect.stringMatching(/^sha256:[0-9a-f]{64}$/) },
      freshness_basis: "source_verified_readonly",
    });
    expect(result["graph_fingerprint"]).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(result["evaluated_at"]).toEqual(expect.any(Number));
  });

  it("shows an optional edge without blocking readiness", async () => {
    await open();
    const result = await graph({ roots: ["DOCS"] });
    expect(result["affected"]).toEqual(["DOCS"]);
    expect(result["nodes"].map((n: Json) => n.key)).toEqual(["DOCS"]);
    expect(result["edges"]).toEqual([
      expect.objectContaining({ from: "DOCS", to: "UI", required: false }),
    ]);
    expect(result["nodes"][0]).toMatchObject({
      ready: true,
      diagnostics: [
        { code: "optional_dependency_incomplete", work_item_key: "UI", detail: expect.any(String) },
      ],
    });
    expect(result["graph_valid"]).toBe(true);
  });

  it("names a missing required reference and a real cycle explicitly", async () => {
    await open();
    const orphan = await graph({ roots: ["ORPHAN"] });
    expect(orphan["missing_required"]).toEqual(["GHOST"]);
    expect(orphan["nodes"].map((n: Json) => n.key)).toEqual(["ORPHAN"]);
    expect(orphan["graph_valid"]).toBe(false);
    expect(orphan["nodes"][0]["ready"]).toBe(false);
    const loop = await graph({ roots: ["LOOP1"] });
    expect(loop["cycle"]).toEqual(["LOOP1", "LOOP2", "LOOP1"]);
    expect(loop["graph_valid"]).toBe(false);
    expect(loop["complete"]).toBe(true);
    // The whole graph has both problems; an unknown root is NotFound.
    const all = await graph({});
    expect(all["missing_required"]).toEqual(["GHOST"]);
    expect(all["cycle"]).toEqual(["LOOP1", "LOOP2", "LOOP1"]);
    expect(all["nodes"]).toHaveLength(8);
    expect((await ledgerFailure(graph({ roots: ["NOPE"] }))).code).toBe("NotFound");
  });

  it("is BudgetExceeded when the closure is larger than limit, never a truncated graph", async () => {
    await open();
    // API's closure: API, UI, RELEASE, LIB.
    expect((await graph({ roots: ["API"], limit: 4 }))["nodes"]).toHaveLength(4);
    const error = await ledgerFailure(graph({ roots: ["API"], limit: 3 }));
    expect(error.code).toBe("BudgetExceeded");
    expect(error.details).toEqual({ required: 4, budget: 3 });
    // The closure counts a missing required key: ORPHAN and GHOST.
    expect((await ledgerFailure(graph({ roots: ["ORPHAN"], limit: 1 }))).code).toBe(
      "BudgetExceeded",
    );
  });

  it("defaults limit to 100 and refuses a limit above 1000 or more than 100 roots", async () => {
    expect(LIMITS.graphLimit).toEqual({ min: 1, max: 1000, default: 100 });
    const items = Array.from(
      { length: 101 },
      (_, i) => `  - id: W${i}\n    title: item ${i}\n    status: ready\n`,
    );
    await open(`work_items:\n${items.join("")}`);
    const over = await ledgerFailure(graph({}));
    expect(over.code).toBe("BudgetExceeded");
    expect(over.details).toEqual({ required: 101, budget: 100 });
    expect((await graph({ limit: 101 }))["nodes"]).toHaveLength(101);
    expect((await graph({ limit: 1000 }))["nodes"]).toHaveLength(101);
    expect((await ledgerFailure(graph({ limit: 1001 }))).code).toBe("InvalidInput");
    expect((await ledgerFailure(graph({ limit: 0 }))).code).toBe("InvalidInput");
    const roots = Array.from({ length: 101 }, (_, i) => `W${i}`);
    expect((await ledgerFailure(graph({ roots, limit: 1000 }))).code).toBe("InvalidInput");
    expect((await graph({ roots: roots.slice(0, 100), limit: 1000 }))["nodes"]).toHaveLength(100);
  });

  it("keeps the fingerprint across calls and claims, and changes it with the graph", async () => {
    const project = await open();
    const first = await graph({ roots: ["API"] });
    const again = await graph({ roots: ["API"] });
    expect(again["graph_fingerprint"]).toBe(first["graph_fingerprint"]);
    // A claim changes readiness, not the graph.
    const { db } = ledgerStore(project.ledger);
    await db
      .insertInto("sessions")
      .values({
        ...{ id: "s-api", client: "stdio", conversation: "c-api", work: "API", agent: "agent-1" },
        ...{ provider: "p", model: "m", status: "active", predecessor: null, successor: null },
        ...{ summary: null, last_checkpoint: null, start_revision: 1, end_revision: null },
        ...{ started_at: "x", ended_at: null },
      })
      .execute();
    await db
      .insertInto("claims")
      .values({
        ...{ id: "c-api", work: "API", session: "s-api", client: "stdio", status: "active" },
        ...{ ttl_ms: null, expires_at: null, acquired_revision: 1, ended_revision: null },
        ...{ acquired_at: "x", ended_at: null },
      })
      .execute();
    const claimed = await graph({ roots: ["API"] });
    const api = claimed["nodes"].find((n: Json) => n.key === "API");
    expect(api).toMatchObject({
      ready: false,
      active_claims: [{ id: "c-api", agent_id: "agent-1", session_id: "s-api", expires_at: null }],
      diagnostics: [expect.objectContaining({ code: "active_claim" })],
    });
    expect(claimed["graph_fingerprint"]).toBe(first["graph_fingerprint"]);
    // A new required dependency changes it.
    writeFileSync(
      join(project.root, "work-ledger.yaml"),
      LEDGER.replace("depends_on: [LIB]", "depends_on: [LIB, DOCS]"),
    );
    await project.ledger.execute(
      "awr_source_reindex",
      { expected_revision: await project.ledger.revision() },
      caller,
    );
    const changed = await graph({ roots: ["API"] });
    expect(changed["nodes"].map((n: Json) => n.key)).toEqual([
      "API",
      "DOCS",
      "LIB",
      "RELEASE",
      "UI",
    ]);
    expect(changed["graph_fingerprint"]).not.toBe(first["graph_fingerprint"]);
    expect(changed["project_revision"]).toBeGreaterThan(first["project_revision"]);
  });
});
