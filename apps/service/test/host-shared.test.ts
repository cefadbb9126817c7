import { rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import { CALL_PATHS, type CallPath, callingBy, toolCall } from "./support/call-path.js";
import { type ClientSet, useClientSet } from "./support/client-set.js";
import {
  type Body,
  call,
  failure,
  hostProject,
  projectIdOf,
  readText,
  revisionOf,
} from "./support/host-fixture.js";
import { writeRegistry } from "./support/projects.js";
import { type SharedService, useSharedService } from "./support/shared-service.js";

/**
 * Hosts on the shared HTTP service, with the official SDK client as each host (the scenarios the
 * original AWR's shared-service tests check, with its argument names): conversations bound to
 * sessions per client and project, checkpoints across connections and a restart, one endpoint
 * routing clients and projects, racing writes, and credentials.
 */

const TOKENS = { writer: "w".repeat(48), reader: "r".repeat(48), colleague: "c".repeat(48) };

let alpha: string;
let beta: string;
/** The client set and shared service of the calling path whose tests are running. */
let clients: ClientSet;
let service: SharedService;
let requests = 0;

let path: CallPath = "flat";

async function connect(token: string): Promise<Client> {
  const client = await service.connect(token);
  return callingBy(client, path, true);
}

/** A write with a fresh request_id, as the shared service requires. */
const write = (client: Client, name: string, args: Record<string, unknown>, failed = false) =>
  call(client, name, { ...args, request_id: `host-shared-${++requests}` }, failed);

const start = (
  project: string,
  root: string,
  work: string,
  conversation: string,
  claim: boolean,
) => ({
  project,
  work,
  conversation,
  agent: "report-editor",
  provider: "fixture",
  model: "none",
  expected_revision: revisionOf(root),
  claim,
});

const sessionId = (body: Body) => (body["session"] as { id: string }).id;

async function restart(): Promise<void> {
  await clients.closeAll();
  expect(await service.restart()).toBe(0);
}

describe.each(CALL_PATHS)("hosts on the shared service, calling by %s", (calling) => {
  const set = useClientSet(`awr-host-shared-${calling}-`);
  const shared = useSharedService(set, async (dir) => {
    alpha = await hostProject(dir, "alpha", "Write the alpha report");
    beta = await hostProject(dir, "beta", "Write the beta report");
    return writeRegistry(
      dir,
      [
        { key: "alpha", root: alpha, project_id: projectIdOf(alpha) },
        { key: "beta", root: beta, project_id: projectIdOf(beta) },
      ],
      [
        { id: "writer", token: TOKENS.writer, write: ["alpha", "beta"] },
        { id: "reader", token: TOKENS.reader, read: ["alpha"] },
        { id: "colleague", token: TOKENS.colleague, write: ["alpha"] },
      ],
    );
  });
  beforeAll(() => {
    path = calling;
    clients = set;
    service = shared;
  });

  it("binds conversations per client and project and keeps checkpoints across a restart", async () => {
    let writer = await connect(TOKENS.writer);
    const colleague = await connect(TOKENS.colleague);
    const args = start("alpha", alpha, "W", "report-thread", true);
    const sid = sessionId(await write(writer, "awr_session_start", args));
    const repeat = await write(writer, "awr_session_start", {
      ...args,
      expected_revision: revisionOf(alpha),
    });
    expect(repeat).toMatchObject({ binding_reused: true, session: { id: sid } });
    const otherWork = start("alpha", alpha, "NEXT", "report-thread", false);
    await failure(
      writer,
      "awr_session_start",
      { ...otherWork, request_id: "bound" },
      "SourceConflict",
    );
    const other = sessionId(
      await write(writer, "awr_session_start", start("alpha", alpha, "NEXT", "follow-up", true)),
    );
    const inBeta = sessionId(
      await write(writer, "awr_session_start", start("beta", beta, "W", "report-thread", true)),
    );
    expect(inBeta).not.toBe(sid);
    const theirs = sessionId(
      await write(
        colleague,
        "awr_session_start",
        start("alpha", alpha, "W", "report-thread", false),
      ),
    );
    expect(theirs).not.toBe(sid);
    const end = {
      project: "alpha",
      session: sid,
      outcome: "ended",
      expected_revision: revisionOf(alpha),
    };
    await failure(colleague, "awr_session_end", { ...end, request_id: "steal" }, "RuleViolation");
    const mismatch = { project: "alpha", session: other, conversation: "report-thread" };
    await failure(writer, "awr_session_get", mismatch, "RuleViolation");
    const context = await call(writer, "awr_context_compile", {
      project: "alpha",
      conversation: "report-thread",
    });
    const hash = (context["work_context"] as { context_hash: string }).context_hash;
    const saved = await write(writer, "awr_session_checkpoint", {
      project: "alpha",
      conversation: "report-thread",
      expected_revision: revisionOf(alpha),
      context_hash: hash,
      digest: "The summary table is drafted; the charts are next.",
      next_action: "Draw the charts",
      open_loops: ["Confirm the chart order"],
    });
    const checkpoint = (saved["checkpoint"] as { id: string }).id;
    const newest = await call(writer, "awr_session_list", { project: "alpha", limit: 1 });
    expect((newest["sessions"] as { id: string }[]).map((s) => s.id)).toEqual([other]);
    const older = await call(writer, "awr_session_list", {
      project: "alpha",
      limit: 1,
      before_revision: newest["next_before_revision"],
    });
    expect((older["sessions"] as { id: string }[]).map((s) => s.id)).toEqual([sid]);

    await restart();
    writer = await connect(TOKENS.writer);
    const byConversation = { project: "alpha", conversation: "report-thread" };
    const restored = await call(writer, "awr_session_get", byConversation);
    expect(restored).toMatchObject({
      session: { id: sid, status: "active" },
      checkpoint: { id: checkpoint },
    });
    const resumed = await write(writer, "awr_session_resume", {
      project: "alpha",
      session: sid,
      conversation: "report-thread",
      agent: "report-editor",
      provider: "fixture",
      model: "none",
      expected_revision: revisionOf(alpha),
    });
    expect(resumed["checkpoint_id"]).toBe(checkpoint);
    const successor = resumed["resumed"] as { session: { id: string }; claim: unknown };
    expect(successor.session.id).not.toBe(sid);
    expect(successor.claim).toEqual(expect.objectContaining({ id: expect.any(String) }));
    const current = await call(writer, "awr_session_get", byConversation);
    expect(current).toMatchObject({
      session: { id: successor.session.id },
      inherited_checkpoint: { id: checkpoint },
    });
    // Ending one session releases only its claims; another conversation stays active.
    await write(writer, "awr_session_end", {
      ...byConversation,
      expected_revision: revisionOf(alpha),
      outcome: "ended",
    });
    const followUp = { project: "alpha", conversation: "follow-up" };
    const still = await call(writer, "awr_session_get", followUp);
    expect(still).toMatchObject({ session: { status: "active" }, claims: [{ status: "active" }] });
    // Runtime reads and cleanup work without the sources.
    const source = await readText(alpha, "work.yaml");
    await rm(join(alpha, "work.yaml"));
    await call(writer, "awr_session_get", followUp);
    await write(writer, "awr_session_end", {
      ...followUp,
      expected_revision: revisionOf(alpha),
      outcome: "interrupted",
    });
    await writeFile(join(alpha, "work.yaml"), source);
  });

  it("routes clients and projects through one endpoint and lets one of two racing writes win", async () => {
    const reader = await connect(TOKENS.reader);
    const writer = await connect(TOKENS.writer);
    const listed = await call(reader, "awr_projects_list", {});
    expect((listed["projects"] as { key: string }[]).map((p) => p.key)).toEqual(["alpha"]);
    expect(JSON.stringify(listed)).not.toContain(set.dir);
    const [a, b] = await Promise.all([
      call(reader, "awr_work_get", { project: "alpha", work: "NEXT" }),
      call(writer, "awr_work_get", { project: "beta", work: "W" }),
    ]);
    expect((a["work"] as { title: string }).title).toBe("Plan the follow-up");
    expect((b["work"] as { title: string }).title).toBe("Write the beta report");
    await failure(reader, "awr_work_get", { project: "beta", work: "W" }, "RuleViolation");
    await failure(writer, "awr_work_get", { project: beta, work: "W" }, "RuleViolation");
    await failure(writer, "awr_work_get", { work: "W" }, "InvalidInput");
    const before = revisionOf(beta);
    const event = {
      project: "beta",
      expected_revision: before,
      event_type: "work.observed",
      summary: "The outline was reviewed",
    };
    const colleague = await connect(TOKENS.colleague);
    await failure(colleague, "awr_event_append", { ...event, request_id: "ro" }, "RuleViolation");
    expect(revisionOf(beta)).toBe(before);
    const results = await Promise.all(
      ["race-1", "race-2"].map((id) =>
        toolCall(writer, "awr_event_append", { ...event, request_id: id }),
      ),
    );
    expect(results.filter((r) => r.isError === false)).toHaveLength(1);
    expect(results.find((r) => r.isError === true)?.structuredContent).toMatchObject({
      code: "RevisionConflict",
    });
    // A journaled write spends three revisions: started, the event itself, finished.
    expect(revisionOf(beta)).toBe(before + 3);
    await restart();
    const again = await connect(TOKENS.writer);
    const current = await call(again, "awr_work_get", { project: "beta", work: "W" });
    expect(current["project_revision"]).toBe(before + 3);
  });

  it("requires a valid token and refuses a foreign Origin or Host before anything else", async () => {
    const url = new URL(service.running.url);
    const post = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request(url, { method: "POST", headers }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        req.end("{}");
      });
    const json = {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    };
    expect(await post(json)).toBe(401);
    expect(await post({ ...json, Authorization: "Bearer incorrect" })).toBe(401);
    const bearer = { ...json, Authorization: `Bearer ${TOKENS.writer}` };
    expect(await post({ ...bearer, Origin: "https://unregistered.example" })).toBe(403);
    expect(await post({ ...bearer, Host: "unregistered.example" })).toBe(403);
  });
});
