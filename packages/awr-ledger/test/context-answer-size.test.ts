import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initProject, openLedger } from "@awr/awr-ledger";
import { ledgerStore } from "@awr/awr-ledger/testing";
import { generateFixtureProject } from "@awr/ledger-fixtures";
import { afterEach, describe, expect, it } from "vitest";
import { BACKENDS } from "./helpers/backends.js";
import { compileL1 } from "./helpers/context.js";
import { ledgerFailure } from "./helpers/failures.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

// A context answer carries the packet's text once (in rendered_context) and every other fact
// once: its size is measured against rendered_context (docs/compatibility/context-answer.md).
const caller = { client: "stdio" };
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
const occurrences = (haystack: string, needle: string) => haystack.split(needle).length - 1;
const failure = (promise: Promise<unknown>) => ledgerFailure(promise, "expected a LedgerError");

/**
 * The bound of answer bytes per rendered_context byte for a packet of the usual size (the
 * generated project's are 7-9 KB). Most of the rest is the original's own per-chunk metadata
 * (selected_chunks, selected_entities); a small packet's ratio is higher because identity and
 * completeness are about 3 KB whatever the packet.
 */
const ANSWER_PER_RENDERED_BYTE = 3;

describe.each(BACKENDS)("context answer size on %s", (backend) => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  it("names a resumed session's predecessors without repeating their checkpoints and waits", async () => {
    p = await openFixtureProject("basic", backend);
    const ledger = p.ledger;
    const revision = () => ledgerStore(ledger).currentRevision();
    const started = await ledger.call("awr_session_start", {
      work: "PAY-2",
      conversation: "conv-0",
      agent: "agent-a",
      provider: "provider-a",
      model: "model-a",
      claim: true,
      expected_revision: await revision(),
    });
    let session: string = started.session.id;
    const digests: string[] = [];
    const questions: string[] = [];
    for (let turn = 1; turn <= 3; turn++) {
      const digest = `Turn ${turn}: ${"the redirect endpoint and its signature check are drafted; ".repeat(12)}`;
      const question = `Turn ${turn}: which provider account should the hosted page use?`;
      const waited = await ledger.call("awr_session_wait", {
        session,
        question,
        digest,
        next_action: `Configure the provider account (turn ${turn})`,
        context_hash: "",
        open_loops: [`provider account ${turn}`],
        expected_revision: await revision(),
      });
      await ledger.call("awr_session_reply", {
        wait: waited.wait.id,
        reply: `The sandbox account (turn ${turn}).`,
        expected_revision: await revision(),
      });
      const resumed = await ledger.call("awr_session_resume", {
        session,
        conversation: `conv-${turn}`,
        agent: "agent-a",
        provider: "provider-a",
        model: "model-a",
        expected_revision: await revision(),
      });
      session = resumed.resumed.session.id;
      digests.push(digest);
      questions.push(question);
    }
    const ctx = await compileL1(ledger, { session, goals: ["goal#checkout"] }, caller);
    const packet = ctx.work_context;
    if (packet === null) throw new Error("no packet");
    const answer = JSON.stringify(ctx);
    // The nearest predecessor's checkpoint is the packet's: its digest is in the text once.
    expect(packet.rendered_context).toContain(digests[2]);
    expect(occurrences(answer, digests[2] as string)).toBe(1);
    for (const digest of digests.slice(0, 2)) expect(answer).not.toContain(digest);
    for (const question of questions) expect(occurrences(answer, question)).toBe(1);
    expect(ctx.continuity.waits).toHaveLength(3);
    expect(ctx.continuity.predecessors).toHaveLength(3);
    const nearest = ctx.continuity.predecessors[0];
    expect(nearest).toMatchObject({
      status: "interrupted",
      last_checkpoint_id: ctx.checkpoint_id,
      open_loops: ["provider account 3"],
      wait_ids: [ctx.continuity.waits[0]?.id],
    });
  });

  it("carries an incomplete packet's completeness once, in the result and not in its error", async () => {
    p = await openFixtureProject("basic", backend);
    // Without goals the packet has a gap (goal_context_missing): ContextIncomplete with it all.
    const error = await failure(
      p.ledger.call("awr_context_compile", { work: "PAY-2", detached: true }, caller),
    );
    expect(error.code).toBe("ContextIncomplete");
    expect(error.details).toBeUndefined();
    const answer = JSON.stringify(error.result);
    expect(error.result).toMatchObject({
      ok: false,
      completeness: { complete: false },
      error: { code: "ContextIncomplete" },
    });
    expect(error.result?.["error"]).not.toHaveProperty("details");
    expect(occurrences(answer, '"assessment_scope"')).toBe(1);
  });
});

describe("context answer size of the generated 150-item project", () => {
  it(`keeps every active item's answer within ${ANSWER_PER_RENDERED_BYTE}x its rendered_context`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "awr-answer-size-"));
    try {
      const fixture = generateFixtureProject(join(dir, "project"), { items: 150, seed: 1 });
      await initProject({ root: fixture.root, manifest: fixture.manifest_path, accept: true });
      const ledger = await openLedger({ root: fixture.root });
      try {
        const active = fixture.items.filter((i) => i.active);
        expect(active.length).toBeGreaterThan(20);
        for (const item of active) {
          const ctx = await compileL1(ledger, { work: item.work, budget: 5000 }, caller);
          const rendered = Buffer.byteLength(ctx.work_context?.rendered_context ?? "");
          expect(rendered, item.work).toBeGreaterThan(0);
          expect(bytes(ctx) / rendered, item.work).toBeLessThanOrEqual(ANSWER_PER_RENDERED_BYTE);
        }
      } finally {
        await ledger.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
