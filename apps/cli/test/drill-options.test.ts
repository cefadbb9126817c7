import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awr, manifestText, removeTemps, tempDir } from "./support/cli-harness.js";

// The options of the CLI-only drill reads (`object show`, `event show`, `context delta`) the
// original defines, each run as a separate `awr --json` call on a small project.

const MANIFEST = manifestText("Drill options", "drill-options", [
  ["goal", "GOALS.md", "markdown-heading-v1"],
  ["plan", "PLAN.md", "markdown-heading-v1"],
  ["ledger", "ledger.yaml", "yaml-ledger-v1"],
  ["rules", "RULES.md", "markdown-rules-v1"],
]);
const LEDGER = `work_items:
  - id: WALL
    title: Build the wall
    status: in_progress
    acceptance:
      - The wall stands two metres high.
`;
const GOALS = `# A garden wall {#wall status=active}

A wall around the garden, built to last.
`;
const PLAN = `# Build in spring {#spring status=active}

Foundations in March, courses in April.
`;
const RULES = `# Safety {#safety severity=hard scope=project value=*}

Wear gloves on site.
`;

// biome-ignore lint/suspicious/noExplicitAny: the answers are JSON, read field by field.
type Json = Record<string, any>;

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

beforeAll(async () => {
  root = await tempDir("awr-drill-");
  await writeFile(join(root, "manifest.toml"), MANIFEST);
  await writeFile(join(root, "ledger.yaml"), LEDGER);
  await writeFile(join(root, "GOALS.md"), GOALS);
  await writeFile(join(root, "PLAN.md"), PLAN);
  await writeFile(join(root, "RULES.md"), RULES);
  expect((await run(["init", "--manifest", "manifest.toml", "--accept"]))["index"]).toMatchObject({
    ok: true,
  });
});
afterAll(removeTemps);

describe("awr object show", () => {
  it("shows a goal, a plan and a rule by key, briefly and in full", async () => {
    const goal = await run(["object", "show", "goal", "goal#wall"]);
    expect(goal).toMatchObject({
      ok: true,
      content_included: false,
      object: {
        external_key: "goal#wall",
        title: "A garden wall",
        status: "active",
        severity: null,
      },
      source: { path: "GOALS.md" },
    });
    expect(goal["object"]["revision"]).toBeGreaterThan(0);
    const plan = await run(["object", "show", "plan", "plan#spring", "--full"]);
    expect(plan).toMatchObject({ content_included: true, object: { external_key: "plan#spring" } });
    expect(plan["object"]["body"]).toContain("Foundations in March");
    const rule = await run(["object", "show", "rule", "rule#safety"]);
    expect(rule["object"]).toMatchObject({ external_key: "rule#safety", severity: "hard" });
    const byId = await run(["object", "show", "rule", rule["object"]["id"]]);
    expect(byId["object"]).toEqual(rule["object"]);
  });

  it("refuses a key of another kind, naming the kind", async () => {
    const error = await run(["object", "show", "goal", "rule#safety"], 1);
    expect(error).toMatchObject({ code: "NotFound" });
    expect(error["message"]).toContain("goal");
  });
});

describe("--max-bytes", () => {
  it("caps object show --full and event show --full, and refuses a cap out of range", async () => {
    const full = await run(["object", "show", "plan", "plan#spring", "--full"]);
    const size = Buffer.byteLength(JSON.stringify(full["object"]));
    const exact = ["object", "show", "plan", "plan#spring", "--full", "--max-bytes", size];
    expect((await run(exact))["object"]).toEqual(full["object"]);
    const over = await run(
      ["object", "show", "plan", "plan#spring", "--full", "--max-bytes", size - 1],
      1,
    );
    expect(over).toMatchObject({ code: "InvalidInput" });
    expect(over["message"]).toContain(`has ${size} bytes; read limit is ${size - 1}`);
    // The brief is not capped: the cap is on the full read.
    await run(["object", "show", "plan", "plan#spring", "--max-bytes", 1]);
    const work = await run(["object", "show", "work", "WALL", "--full", "--max-bytes", 10], 1);
    expect(work).toMatchObject({ code: "InvalidInput" });

    const payload = JSON.stringify({ body: "x".repeat(200) });
    await writeFile(join(root, "big.json"), payload);
    const status = await run(["status"]);
    const appended = await run([
      "event",
      "append",
      "--work",
      "WALL",
      "--type",
      "work.progress",
      "--summary",
      "A long note.",
      "--payload",
      "big.json",
      "--expected-revision",
      status["project_revision"],
    ]);
    const id = appended["event"]["id"] as string;
    const shown = await run(["event", "show", id, "--full"]);
    expect(shown["event"]["payload"]).toEqual(JSON.parse(payload));
    const refused = await run(["event", "show", id, "--full", "--max-bytes", 100], 1);
    expect(refused).toMatchObject({ code: "InvalidInput" });
    expect(refused["message"]).toContain("read limit is 100");
    for (const bad of [0, 16_777_217]) {
      const error = await run(["event", "show", id, "--full", "--max-bytes", bad], 1);
      expect(error).toMatchObject({ code: "InvalidInput" });
    }
  });
});

describe("awr context delta", () => {
  it("selects the agent's active session with --agent and caps entities with --entity-limit", async () => {
    const agent = ["--agent", "mason-a", "--provider", "p", "--model", "m"];
    const status = await run(["status"]);
    const started = await run([
      "session",
      "start",
      "--work",
      "WALL",
      ...agent,
      "--expected-revision",
      status["project_revision"],
    ]);
    const sid = started["session"]["id"] as string;
    await writeFile(
      join(root, "GOALS.md"),
      `${GOALS}\n# A gate {#gate status=active}\n\nA gate in the wall.\n\n# A path {#path status=active}\n\nA path to the gate.\n`,
    );
    const delta = await run(["context", "delta", "--agent", "mason-a"]);
    expect(delta).toMatchObject({ session_id: sid, work_item_key: "WALL" });
    const [change] = delta["delta"]["events"]["source_changes"] as Json[];
    expect(change).toMatchObject({ changed_entity_count: 2, omitted_entities: 0 });
    expect(change?.["changed_entities"]).toHaveLength(2);
    const capped = await run(["context", "delta", "--agent", "mason-a", "--entity-limit", 1]);
    const [cut] = capped["delta"]["events"]["source_changes"] as Json[];
    expect(cut).toMatchObject({ changed_entity_count: 2, omitted_entities: 1 });
    expect(cut?.["changed_entities"]).toEqual(change?.["changed_entities"].slice(0, 1));

    const other = await run(["context", "delta", "--session", sid, "--agent", "mason-b"], 1);
    expect(other).toMatchObject({ code: "InvalidInput" });
    expect(other["message"]).toContain("mason-a");
    const nobody = await run(["context", "delta", "--agent", "nobody"], 1);
    expect(nobody).toMatchObject({ code: "InvalidInput" });
    for (const bad of [0, 201]) {
      const error = await run(["context", "delta", "--work", "WALL", "--entity-limit", bad], 1);
      expect(error).toMatchObject({ code: "InvalidInput" });
    }
  });
});

describe("awr context delta --event-limit", () => {
  it("lists 12 events of a kind by default, as the original does, and the given number with the flag", async () => {
    for (let i = 0; i < 13; i++) {
      const { project_revision } = await run(["status"]);
      await run([
        "event",
        "append",
        "--work",
        "WALL",
        "--type",
        "note.progress",
        "--summary",
        `course ${i}`,
        "--expected-revision",
        project_revision,
      ]);
    }
    const delta = await run(["context", "delta", "--work", "WALL"]);
    expect(delta["delta"]["events"]["work_events"]).toHaveLength(12);
    expect(delta["delta"]["truncated"]).toBe(true);
    const three = await run(["context", "delta", "--work", "WALL", "--event-limit", 3]);
    expect(three["delta"]["events"]["work_events"]).toHaveLength(3);
  });
});

describe("awr object show --entity-revision and --cached", () => {
  it("refuses an object at another revision, and reads the recorded projection with --cached", async () => {
    const rule = await run(["object", "show", "rule", "rule#safety"]);
    const at = rule["object"]["revision"] as number;
    const same = await run(["object", "show", "rule", "rule#safety", "--entity-revision", at]);
    expect(same["object"]).toEqual(rule["object"]);
    const work = await run(["object", "show", "work", "WALL"]);
    expect(work["object"]["revision"]).toBeGreaterThan(0);
    await run(["object", "show", "work", "WALL", "--entity-revision", work["object"]["revision"]]);
    const stale = await run(
      ["object", "show", "rule", "rule#safety", "--entity-revision", at + 1],
      1,
    );
    expect(stale).toMatchObject({
      code: "RevisionConflict",
      details: { expected: at + 1, actual: at },
    });

    // A changed source: --cached answers from the recorded projection and says so; a plain
    // read reindexes first.
    await writeFile(join(root, "RULES.md"), RULES.replace("Wear gloves", "Wear gloves and boots"));
    const cached = await run(["object", "show", "rule", "rule#safety", "--cached", "--full"]);
    expect(cached).toMatchObject({
      freshness_basis: "runtime_database",
      source_refresh_performed: false,
    });
    expect(cached["object"]["body"]).not.toContain("boots");
    const fresh = await run(["object", "show", "rule", "rule#safety", "--full"]);
    expect(fresh).toMatchObject({ source_refresh_performed: true });
    expect(fresh["object"]["body"]).toContain("boots");
    expect(fresh["object"]["revision"]).toBeGreaterThan(at);
  });
});

describe("awr status, ready and work show --cached", () => {
  it("answer from the last recorded snapshot while a source changed, saying so, and change nothing", async () => {
    const before = await run(["work", "show", "WALL"]);
    const revision = before["project_revision"] as number;
    await writeFile(join(root, "ledger.yaml"), LEDGER.replace("Build the wall", "Build the gate"));
    for (const args of [
      ["status"],
      ["status", "--view", "full"],
      ["ready"],
      ["work", "show", "WALL"],
    ]) {
      const cached = await run([...args, "--cached"]);
      expect({ args, ...cached }).toMatchObject({
        args,
        project_revision: revision,
        freshness_basis: "last_recorded_source_state",
        source_refresh_performed: false,
        read_only: true,
      });
    }
    const shown = await run(["work", "show", "WALL", "--cached"]);
    expect(shown["work"]["title"]).toBe("Build the wall");
    // Without --cached the CLI reindexes first and shows the edit.
    const fresh = await run(["work", "show", "WALL"]);
    expect(fresh).toMatchObject({
      source_refresh_performed: true,
      work: { title: "Build the gate" },
    });
    expect(fresh["project_revision"]).toBeGreaterThan(revision);
    await writeFile(join(root, "ledger.yaml"), LEDGER);
  });
});
