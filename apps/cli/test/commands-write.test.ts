import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awr, demoProject, removeTemps } from "./support/cli-harness.js";

let root: string;
const AGENT = ["--agent", "builder", "--provider", "example-provider", "--model", "example-model"];
const SHA = "e".repeat(40);

beforeAll(async () => {
  root = await demoProject();
});
afterAll(removeTemps);

describe("writes for a person at a terminal", () => {
  it("starts a session, moves work and says what changed and what it spent", async () => {
    const start = await awr(
      ["session", "start", "--work", "W-3", "--conversation", "desk", ...AGENT, "--claim"],
      { cwd: root },
    );
    expect(start.code).toBe(0);
    expect(start.stdout).toMatch(
      /^✓ session start\n {2}revision (\d+) → \d+: spent 1, the change itself;/,
    );
    const progress = await awr(
      ["work", "progress", "W-3", "--conversation", "desk", "--reason", "starting"],
      { cwd: root },
    );
    expect(progress.stdout).toContain("W-3 ready → in_progress");
    const ledger = await readFile(join(root, "work-ledger.yaml"), "utf8");
    expect(ledger).toMatch(
      /id: W-3\n\s+title: Payment through the hosted payment page\n\s+status: in_progress/,
    );
  });

  it("journals a write given --request-id (3 revisions) and replays it, spending nothing", async () => {
    const words = [
      "event",
      "append",
      "--type",
      "note.added",
      "--summary",
      "once",
      "--request-id",
      "desk-note-1",
    ];
    const first = await awr(words, { cwd: root });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      /revision (\d+) → \d+: spent 3, journaled under --request-id: started, the change, finished/,
    );
    const again = await awr(words, { cwd: root });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/revision \d+: replayed, nothing ran or was spent/);
  });

  it("accepts a --payload file of exactly 1 MiB (the file has its own bound) and refuses one byte more", async () => {
    const MiB = 1024 * 1024;
    const payload = { body: "x".repeat(MiB - '{"body":""}'.length) };
    await writeFile(join(root, "payload.json"), JSON.stringify(payload));
    const words = ["--json", "event", "append", "--type", "work.observed", "--work", "W-1"];
    const append = (file: string) =>
      awr([...words, "--summary", "Bounded details", "--payload", file], { cwd: root });
    const accepted = await append("payload.json");
    expect([accepted.code, accepted.stderr]).toEqual([0, ""]);
    expect(accepted.json<{ event: { payload: unknown } }>().event.payload).toEqual(payload);
    await writeFile(join(root, "over.json"), JSON.stringify({ body: `${payload.body}x` }));
    const over = await append("over.json");
    expect(over.code).toBe(1);
    expect(over.error()).toMatchObject({
      code: "InvalidInput",
      message: `over.json is ${MiB + 1} bytes; the limit is ${MiB}.`,
    });
  });

  it("never repeats an unknown --input or --payload field's name, in either output mode", async () => {
    const SENTINEL = "fixture-value-only-never-real";
    const evidence = {
      external_key: "E-SENTINEL",
      evidence_type: "report",
      level: "implemented",
      summary: "Reviewed the report",
      locator: "report.txt",
      scope: ["W-1"],
      [SENTINEL]: "ordinary value",
    };
    await writeFile(join(root, "evidence.json"), JSON.stringify(evidence));
    await writeFile(join(root, "observed.json"), JSON.stringify({ [SENTINEL]: "v" }));
    const event = ["event", "append", "--type", "work.observed", "--summary", "s"];
    for (const json of [[], ["--json"]]) {
      const input = await awr([...json, "evidence", "add", "--input", "evidence.json"], {
        cwd: root,
      });
      const payload = await awr([...json, ...event, "--payload", "observed.json"], { cwd: root });
      for (const refused of [input, payload]) {
        expect([refused.code, refused.stdout]).toEqual([1, ""]);
        expect(refused.stderr).not.toContain(SENTINEL);
      }
      expect(input.stderr).toContain("1 unknown argument");
      // The human message speaks in flags (--payload), the JSON one as the tool does.
      expect(payload.stderr).toContain(
        json.length === 0 ? "--payload 1 unknown field" : "payload: 1 unknown field",
      );
    }
  });

  it("refuses a transition while a question is pending, naming the wait, until it is answered", async () => {
    const wait = await awr(
      [
        "session",
        "wait",
        "--conversation",
        "desk",
        "--question",
        "Which provider?",
        "--context-hash",
        "sha256:desk",
        "--digest",
        "callback drafted",
        "--next-action",
        "ask",
        "--json",
      ],
      { cwd: root },
    );
    expect(wait.code).toBe(0);
    const waitId = (wait.json()["wait"] as { id: string }).id;
    const blocked = await awr(
      [
        "work",
        "block",
        "W-3",
        "--conversation",
        "desk",
        "--reason",
        "provider",
        "--blocker",
        "provider",
        "--json",
      ],
      { cwd: root },
    );
    expect(blocked.code).toBe(1);
    expect(blocked.error().code).toBe("InvalidTransition");
    expect(blocked.error().message).toContain(waitId);
    const reply = await awr(["session", "reply", waitId, "--reply", "the usual one"], {
      cwd: root,
    });
    expect(reply.code).toBe(0);
    expect(reply.stdout).toContain("answered");
  });

  it("refuses completion with evidence below the required level", async () => {
    await writeFile(
      join(root, "ev-sketch.json"),
      JSON.stringify({
        external_key: "ev-sketch",
        work_item_key: "W-3",
        evidence_type: "design",
        level: "designed",
        summary: "a sketch",
        locator: "https://example.com/sketch",
        source_sha: SHA,
        scope: ["W-3"],
      }),
    );
    expect((await awr(["evidence", "add", "--input", "ev-sketch.json"], { cwd: root })).code).toBe(
      0,
    );
    await writeFile(
      join(root, "completion.json"),
      JSON.stringify({
        version: 1,
        source_sha: SHA,
        acceptance: [
          { criterion: "ac-1", evidence: ["ev-sketch"] },
          { criterion: "ac-2", evidence: ["ev-sketch"] },
        ],
      }),
    );
    const result = await awr(
      [
        "work",
        "complete",
        "W-3",
        "--conversation",
        "desk",
        "--reason",
        "done?",
        "--input",
        join(root, "completion.json"),
        "--json",
      ],
      { cwd: root },
    );
    expect(result.code).toBe(1);
    expect(result.error().code).toBe("EvidenceMissing");
  });

  it("reindexes after a source edit and reports nothing to do when unchanged", async () => {
    const unchanged = await awr(["source", "reindex", "--json"], { cwd: root });
    expect(unchanged.code).toBe(0);
    expect(unchanged.json()["reindexed"]).toBe(false);
  });

  it("replays a retried write that was answered without a change, even after other writes", async () => {
    const words = ["source", "reindex", "--request-id", "desk-reindex-1", "--json"];
    const first = await awr(words, { cwd: root });
    expect(first.code).toBe(0);
    expect(first.json()["reindexed"]).toBe(false);
    const answeredAt = first.json()["project_revision"];
    const note = await awr(
      ["event", "append", "--type", "note.added", "--summary", "in between", "--json"],
      { cwd: root },
    );
    expect(note.code).toBe(0);

    // A replay answers the revision it was recorded at, and the project's revision now (the
    // next expected_revision), as the original does.
    const again = await awr(words, { cwd: root });
    expect(again.code).toBe(0);
    expect(again.json()).toMatchObject({
      replayed: true,
      reindexed: false,
      request_id: "desk-reindex-1",
      receipt_project_revision: answeredAt,
      project_revision: note.json()["project_revision"],
    });
    const op = await awr(["operation", "get", "desk-reindex-1", "--json"], { cwd: root });
    expect(op.json()).toMatchObject({
      tool: "awr_source_reindex",
      expected_revision: answeredAt,
      started_revision: answeredAt,
      finished_revision: answeredAt,
    });
  });
});
