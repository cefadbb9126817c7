import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awr, demoProject, removeTemps } from "./support/cli-harness.js";

let root: string;
const AGENT = ["--agent", "builder", "--provider", "example-provider", "--model", "example-model"];

beforeAll(async () => {
  root = await demoProject();
});
afterAll(removeTemps);

describe("writes for a person at a terminal", () => {
  it("starts a session, moves work and says what changed in one line each", async () => {
    const start = await awr(
      ["session", "start", "W-3", "--conversation", "desk", ...AGENT, "--claim"],
      { cwd: root },
    );
    expect(start.code).toBe(0);
    expect(start.stdout).toMatch(/✓ session started on W-3\s+revision \d+/);
    const progress = await awr(["work", "progress", "W-3", "--conversation", "desk"], {
      cwd: root,
    });
    expect(progress.stdout).toContain("W-3 ready → in_progress");
    const ledger = await readFile(join(root, "work-ledger.yaml"), "utf8");
    expect(ledger).toMatch(
      /id: W-3\n\s+title: Payment through the hosted payment page\n\s+status: in_progress/,
    );
  });

  it("replays a write sent again with the same request id, spending nothing", async () => {
    const words = [
      "event",
      "append",
      "note.added",
      "--summary",
      "once",
      "--request-id",
      "desk-note-1",
    ];
    const first = await awr([...words, "--json"], { cwd: root });
    expect(first.code).toBe(0);
    const revision = first.json()["project_revision"];
    const again = await awr(words, { cwd: root });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("replayed");
    const status = await awr(["status", "--json"], { cwd: root });
    expect(status.json()["project_revision"]).toBe(revision);
  });

  it("refuses a transition while a question is pending, naming the wait", async () => {
    await awr(
      [
        "session",
        "wait",
        "--conversation",
        "desk",
        "--question",
        "Which provider?",
        "--digest",
        "callback drafted",
      ],
      {
        cwd: root,
      },
    );
    const blocked = await awr(
      ["work", "block", "W-3", "--conversation", "desk", "--blocker", "provider", "--json"],
      {
        cwd: root,
      },
    );
    expect(blocked.code).toBe(1);
    expect(blocked.error().code).toBe("InvalidTransition");
    const reply = await awr(
      ["session", "reply", "--conversation", "desk", "--answer", "the usual one"],
      { cwd: root },
    );
    expect(reply.code).toBe(0);
    expect(reply.stdout).toContain("question answered");
  });

  it("refuses completion with evidence below the required level", async () => {
    const evidence = [
      "evidence",
      "add",
      "ev-sketch",
      "--type",
      "design",
      "--level",
      "designed",
      "--summary",
      "a sketch",
      "--work",
      "W-3",
    ];
    expect((await awr(evidence, { cwd: root })).code).toBe(0);
    const result = await awr(
      [
        "work",
        "complete",
        "W-3",
        "--conversation",
        "desk",
        "--criterion",
        "ac-1=ev-sketch",
        "--criterion",
        "ac-2=ev-sketch",
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
    const note = await awr(["event", "append", "note.added", "--summary", "in between"], {
      cwd: root,
    });
    expect(note.code).toBe(0);

    const again = await awr(words, { cwd: root });
    expect(again.code).toBe(0);
    expect(again.json()).toMatchObject({
      replayed: true,
      reindexed: false,
      request_id: "desk-reindex-1",
      project_revision: answeredAt,
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
