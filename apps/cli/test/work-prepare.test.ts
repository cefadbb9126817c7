import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { LIMITS, openLedger } from "@awr/awr-ledger";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awr, manifestText, removeTemps, tempDir } from "./support/cli-harness.js";

// `awr work prepare` on a small project whose one ready item has complete context: the JSON is
// the tool's answer, each view as the tool gives it, and preparing writes nothing.

const MANIFEST = manifestText("Prepare", "prepare", [
  ["goal", "GOALS.md", "markdown-heading-v1"],
  ["ledger", "ledger.yaml", "yaml-ledger-v1"],
  ["rules", "RULES.md", "markdown-rules-v1"],
]);
const LEDGER = `work_items:
  - id: WALL
    title: Build the wall
    status: ready
    goal: goal#wall
    next_action: Lay the foundation
    acceptance:
      - The wall stands two metres high.
`;
const GOALS = `# A garden wall {#wall status=active}

A wall around the garden, built to last.
`;
const RULES = `# Safety {#safety severity=hard scope=project value=*}

Wear gloves on site.
`;

// biome-ignore lint/suspicious/noExplicitAny: the answers are JSON, read field by field.
type Json = Record<string, any>;
/** The only fields where a CLI read and a tool read may differ (the CLI refreshes first). */
const POLICY = ["freshness_basis", "source_refresh_performed", "read_only"];
const content = (answer: Json): Json =>
  Object.fromEntries(Object.entries(answer).filter(([key]) => !POLICY.includes(key)));

let root: string;
const cli = (...args: string[]) => awr(["--project", root, ...args]);
const revision = async () => Number((await cli("--json", "status")).json()["project_revision"]);

/** The same preparation as a tool call on the project's ledger. */
async function tool(args: Json): Promise<Json> {
  const ledger = await openLedger({ root });
  try {
    return (await ledger.execute("awr_work_prepare", args, { client: "stdio" })) as Json;
  } finally {
    await ledger.close();
  }
}

beforeAll(async () => {
  root = await tempDir("awr-prepare-");
  await writeFile(join(root, "manifest.toml"), MANIFEST);
  await writeFile(join(root, "ledger.yaml"), LEDGER);
  await writeFile(join(root, "GOALS.md"), GOALS);
  await writeFile(join(root, "RULES.md"), RULES);
  const init = await cli("--json", "init", "--manifest", "manifest.toml", "--accept");
  expect(init.code, init.stderr).toBe(0);
});
afterAll(removeTemps);

describe("awr work prepare", () => {
  it("answers under --json exactly what awr_work_prepare answers, in every view", async () => {
    const cases: [string[], Json][] = [
      [[], { work: "WALL" }],
      [
        ["--goal", "goal#wall", "--budget", "3000"],
        { work: "WALL", goals: ["goal#wall"], budget: 3000 },
      ],
      [["--response-view", "summary"], { work: "WALL", response_view: "summary" }],
      [["--response-view", "action"], { work: "WALL", response_view: "action" }],
    ];
    for (const [flags, args] of cases) {
      const result = await cli("--json", "work", "prepare", "WALL", ...flags);
      expect(result.code, result.stderr).toBe(0);
      const answer = result.json<Json>();
      expect(answer).toMatchObject({ ok: true, stage: "prepared", ready: true });
      expect(content(answer), flags.join(" ")).toEqual(content(await tool(args)));
    }
  });

  it("the action view's card stays within its bound, and preparing writes nothing", async () => {
    const before = await revision();
    const result = await cli("--json", "work", "prepare", "WALL", "--response-view", "action");
    const answer = result.json<Json>();
    expect(Object.keys(answer["guidance"]).sort()).toEqual([
      "basis",
      "next_action",
      "recheck",
      "when",
    ]);
    const size = new TextEncoder().encode(JSON.stringify(answer["guidance"])).length;
    expect(size).toBeLessThanOrEqual(LIMITS.actionGuidanceBytes);
    expect(answer["response_view"]).toMatchObject({
      view: "action",
      guidance_max_bytes: LIMITS.actionGuidanceBytes,
      full_result: { tool: "awr_work_prepare", arguments: { work: "WALL" } },
    });
    expect(answer["context_consumed"]).toBe(false);
    expect(await revision()).toBe(before);
    const sessions = await cli("--json", "session", "list");
    expect(sessions.json()["sessions"]).toEqual([]);
  });

  it("shows a person the guidance first, then the rendered context", async () => {
    const action = await cli("work", "prepare", "WALL", "--response-view", "action");
    expect(action.code, action.stderr).toBe(0);
    const lines = action.stdout.split("\n");
    expect(lines[0]).toMatch(/^stage\s+prepared/);
    expect(lines[1]).toMatch(/^when\s+The required context is complete/);
    expect(action.stdout).toContain("Lay the foundation");
    const full = await cli("work", "prepare", "WALL");
    expect(full.stdout).toMatch(/next action\s+consume_context_then_start_or_resume_session/);
  });

  it("refuses an unknown item, a view outside the enum and a budget out of range", async () => {
    const unknown = await cli("--json", "work", "prepare", "NOPE");
    expect(unknown.code).toBe(1);
    expect(unknown.error().code).toBe("NotFound");
    const view = await cli("work", "prepare", "WALL", "--response-view", "brief");
    expect(view.code).not.toBe(0);
    const budget = await cli("--json", "work", "prepare", "WALL", "--budget", "0");
    expect(budget.code).not.toBe(0);
  });
});
