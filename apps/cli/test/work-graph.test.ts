import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { openLedger } from "@awr/awr-ledger";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awr, manifestText, removeTemps, tempDir } from "./support/cli-harness.js";

// `awr work graph --root KEY... --branch B --limit N`: the awr_work_graph read on the command
// line, its --json document the tool's answer (but for the read-policy fields: the CLI reindexes
// changed sources first, and the clock reading evaluated_at).

const MANIFEST = manifestText("Work graph", "work-graph", [
  ["ledger", "ledger.yaml", "yaml-ledger-v1"],
]);
// The work-graph project the ledger's own graph tests use (its fixture, read as it is).
const LEDGER = readFileSync(
  new URL(
    "../../../packages/awr-ledger/test/fixtures/work-graph/work-ledger.yaml",
    import.meta.url,
  ),
  "utf8",
);

// biome-ignore lint/suspicious/noExplicitAny: the answers are JSON, read field by field.
type Json = Record<string, any>;

const POLICY = ["freshness_basis", "source_refresh_performed", "read_only", "evaluated_at"];
const withoutPolicy = (value: Json): Json =>
  Object.fromEntries(Object.entries(value).filter(([key]) => !POLICY.includes(key)));

let root: string;
const run = async (args: (string | number)[], code = 0): Promise<Json> => {
  const result = await awr(["--project", root, "--json", ...args.map(String)]);
  expect({ args, code: result.code, stderr: result.stderr }).toEqual({
    args,
    code,
    stderr: code === 0 ? "" : result.stderr,
  });
  return (code === 0 ? result.json() : result.error()) as Json;
};

async function tool(args: Json): Promise<Json> {
  const ledger = await openLedger({ root });
  try {
    return (await ledger.execute("awr_work_graph", args)) as Json;
  } finally {
    await ledger.close();
  }
}

beforeAll(async () => {
  root = await tempDir("awr-graph-");
  await writeFile(join(root, "manifest.toml"), MANIFEST);
  await writeFile(join(root, "ledger.yaml"), LEDGER);
  await run(["init", "--manifest", "manifest.toml", "--accept"]);
});
afterAll(removeTemps);

describe("awr work graph", () => {
  it("answers the roots' dependents and required ancestors, as the tool does", async () => {
    const cli = await run(["work", "graph", "--root", "API", "--root", "DOCS", "--limit", "10"]);
    expect(cli["roots"]).toEqual(["API", "DOCS"]);
    expect(cli["affected"]).toEqual(["API", "DOCS", "RELEASE", "UI"]);
    expect(cli["nodes"].map((n: Json) => n.key)).toEqual(["API", "DOCS", "LIB", "RELEASE", "UI"]);
    expect(cli["edges"].find((e: Json) => e.from === "DOCS")).toMatchObject({
      to: "UI",
      required: false,
    });
    expect(cli["nodes"].find((n: Json) => n.key === "DOCS")).toMatchObject({ ready: true });
    expect(cli).toMatchObject({ freshness_basis: "source_refresh", graph_valid: true });
    const answer = await tool({ roots: ["API", "DOCS"], limit: 10 });
    expect(answer["freshness_basis"]).toBe("source_verified_readonly");
    expect(withoutPolicy(cli)).toEqual(withoutPolicy(answer));
  });

  it("names a missing required key and a cycle, and refuses an unknown root", async () => {
    const all = await run(["work", "graph"]);
    expect(all["missing_required"]).toEqual(["GHOST"]);
    expect(all["cycle"]).toEqual(["LOOP1", "LOOP2", "LOOP1"]);
    expect(all["graph_valid"]).toBe(false);
    expect(all["complete"]).toBe(true);
    expect(withoutPolicy(all)).toEqual(withoutPolicy(await tool({})));
    expect((await run(["work", "graph", "--root", "NOPE"], 1))["code"]).toBe("NotFound");
  });

  it("is BudgetExceeded beyond --limit, and --limit is 1..1000", async () => {
    const error = await run(["work", "graph", "--root", "API", "--limit", "2"], 1);
    expect(error).toMatchObject({ code: "BudgetExceeded", details: { required: 4, budget: 2 } });
    expect((await run(["work", "graph", "--limit", "1001"], 1))["code"]).toBe("InvalidInput");
    expect((await run(["work", "graph", "--limit", "0"], 1))["code"]).toBe("InvalidInput");
    expect((await run(["work", "graph", "--limit", "1000"]))["nodes"]).toHaveLength(8);
  });

  it("keeps its fingerprint across runs and changes it with the graph", async () => {
    const first = await run(["work", "graph", "--root", "UI"]);
    expect((await run(["work", "graph", "--root", "UI"]))["graph_fingerprint"]).toBe(
      first["graph_fingerprint"],
    );
    await writeFile(
      join(root, "ledger.yaml"),
      LEDGER.replace("depends_on: [LIB]", "depends_on: []"),
    );
    const changed = await run(["work", "graph", "--root", "UI"]);
    expect(changed["nodes"].map((n: Json) => n.key)).toEqual(["API", "RELEASE", "UI"]);
    expect(changed["graph_fingerprint"]).not.toBe(first["graph_fingerprint"]);
    await writeFile(join(root, "ledger.yaml"), LEDGER);
    const back = await run(["work", "graph", "--root", "UI"]);
    expect(back["graph_fingerprint"]).toBe(first["graph_fingerprint"]);
  });

  it("defaults --limit to 100", async () => {
    const items = Array.from(
      { length: 101 },
      (_, i) => `  - id: W${i}\n    title: item ${i}\n    status: ready\n`,
    );
    await writeFile(join(root, "ledger.yaml"), `work_items:\n${items.join("")}`);
    const error = await run(["work", "graph"], 1);
    expect(error).toMatchObject({
      code: "BudgetExceeded",
      details: { required: 101, budget: 100 },
    });
    expect((await run(["work", "graph", "--limit", "101"]))["nodes"]).toHaveLength(101);
    const human = await awr(["--project", root, "work", "graph", "--root", "W1"]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("W1");
    await writeFile(join(root, "ledger.yaml"), LEDGER);
  });
});
