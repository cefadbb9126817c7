import {
  CONVERSATION_EVENT_TYPES,
  eventSeenBy,
  eventTextVisible,
  type Ledger,
  type ToolName,
} from "@awr/awr-ledger";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BACKENDS } from "./helpers/backends.js";
import { compileL1 } from "./helpers/context.js";
import { ledgerFailure } from "./helpers/failures.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

const WRITER = { client: "writer-a" };
const OTHER = { client: "writer-b" };

const failure = (promise: Promise<unknown>) => ledgerFailure(promise, "expected a LedgerError");

describe("the visibility rule for events", () => {
  const row = (type: string, client: string | null) => ({
    type,
    client,
    summary: "the secret digest",
    payload: JSON.stringify({ conversation: "conv-secret" }),
  });

  it("hides another client's conversation text and nothing else", () => {
    for (const type of CONVERSATION_EVENT_TYPES) {
      const seen = eventSeenBy(row(type, "writer-a"), "writer-b");
      expect(seen.summary).not.toContain("secret");
      expect(seen.summary).not.toBe("");
      expect(seen.payload).toBe("{}");
      expect(seen.type).toBe(type);
      expect(eventTextVisible(row(type, "writer-a"), "writer-b")).toBe(false);
    }
  });

  it("shows a client its own events, project events, and unattributed ones as they are", () => {
    const own = row("checkpoint.created", "writer-a");
    expect(eventSeenBy(own, "writer-a")).toBe(own);
    for (const type of ["work.progressed", "work.completed", "evidence.recorded", "note.added"]) {
      const shared = row(type, "writer-a");
      expect(eventSeenBy(shared, "writer-b")).toBe(shared);
    }
    const legacy = row("mcp.wait_created", null);
    expect(eventSeenBy(legacy, "writer-b")).toBe(legacy);
  });
});

describe.each(BACKENDS)("conversation privacy in the ledger on %s", (backend) => {
  let p: OpenProject;
  let ledger: Ledger;
  let session: string;
  let checkpointId: string;
  let waitId: string;
  const revision = async () =>
    (
      (await ledger.call("awr_project_status", { view: "summary" }, WRITER)) as {
        project_revision: number;
      }
    ).project_revision;

  beforeEach(async () => {
    p = await openFixtureProject("basic", backend);
    ledger = p.ledger;
    const started = (await ledger.call(
      "awr_session_start",
      {
        work: "PAY-2",
        conversation: "conv-secret-a",
        agent: "agent-a",
        provider: "prov",
        model: "m",
        claim: true,
        expected_revision: await revision(),
      },
      WRITER,
    )) as { session: { id: string } };
    session = started.session.id;
    const saved = (await ledger.call(
      "awr_session_checkpoint",
      {
        session,
        context_hash: "sha256:ctx",
        digest: "digestSecretA about the redirect",
        next_action: "nextSecretA",
        open_loops: ["loopSecretA"],
        expected_revision: await revision(),
      },
      WRITER,
    )) as { checkpoint: { id: string } };
    checkpointId = saved.checkpoint.id;
    const waited = (await ledger.call(
      "awr_session_wait",
      {
        session,
        question: "questionSecretA?",
        context_hash: "sha256:ctx",
        digest: "waitDigestSecretA",
        next_action: "after the answer",
        expected_revision: await revision(),
      },
      WRITER,
    )) as { wait: { id: string } };
    waitId = waited.wait.id;
  });
  afterEach(() => p.close());

  const SECRETS = /Secret|conv-secret/;

  it("another client's context packet for the same work quotes none of the session's text", async () => {
    const theirs = await compileL1(ledger, { work: "PAY-2", detached: true, budget: 20000 }, OTHER);
    expect(JSON.stringify(theirs)).not.toMatch(SECRETS);
    expect(theirs.work_context?.rendered_context).toContain("checkpoint recorded");
    const own = await compileL1(ledger, { session, budget: 20000 }, WRITER);
    expect(JSON.stringify(own)).toContain("waitDigestSecretA");
    expect(JSON.stringify(own)).toContain("questionSecretA?");
  });

  it("search neither matches nor lists another client's conversation events", async () => {
    type Hits = { hits: { kind: string; summary: string }[] };
    const search = async (input: Record<string, unknown>, caller: { client: string }) =>
      ((await ledger.call("awr_search", { limit: 100, ...input }, caller)) as Hits).hits;
    for (const text of ["digestSecretA", "questionSecretA", "waitDigestSecretA"]) {
      expect(await search({ text }, OTHER)).toEqual([]);
      expect((await search({ text }, WRITER)).length).toBeGreaterThan(0);
    }
    // CJK text is matched by substring (LIKE / ILIKE), under the same rule.
    await ledger.call(
      "awr_session_reply",
      { wait: waitId, reply: "好", expected_revision: await revision() },
      WRITER,
    );
    await ledger.call(
      "awr_session_wait",
      {
        session,
        question: "机密问题",
        context_hash: "sha256:ctx",
        digest: "机密摘要",
        next_action: "n",
        expected_revision: await revision(),
      },
      WRITER,
    );
    expect(await search({ text: "机密" }, OTHER)).toEqual([]);
    expect((await search({ text: "机密" }, WRITER)).length).toBe(2);
    for (const input of [{ kind: "event" }, { work: "PAY-2" }]) {
      const theirs = await search(input, OTHER);
      expect(JSON.stringify(theirs)).not.toMatch(SECRETS);
      // The project's events (the claim, the reindex) are shared; only session text is not.
      expect(theirs.some((h) => h.kind === "event")).toBe(true);
      expect(JSON.stringify(await search(input, WRITER))).toContain("questionSecretA");
    }
  });

  it("refuses another client's session, conversation-bound session and checkpoint in context", async () => {
    for (const input of [
      { session },
      { work: "PAY-2", session },
      { work: "PAY-2", detached: true, checkpoint: checkpointId },
    ]) {
      const error = await failure(ledger.call("awr_context_compile", input, OTHER));
      expect(error.code).toBe("RuleViolation");
      expect(error.message).not.toMatch(SECRETS);
    }
    // The same conversation string names no session of the other client.
    const error = await failure(
      ledger.call("awr_context_compile", { conversation: "conv-secret-a" }, OTHER),
    );
    expect(error.code).toBe("NotFound");
    const own = await compileL1(ledger, { session, checkpoint: checkpointId }, WRITER);
    expect(own.session_id).toBe(session);
  });

  it("the bootstrap context never falls back to another client's checkpoint", async () => {
    const theirs = await ledger.call("awr_context_bootstrap", { work: "PAY-2" }, OTHER);
    expect(theirs.context.checkpoint).toBeNull();
    expect(JSON.stringify(theirs)).not.toMatch(SECRETS);
    await ledger.call(
      "awr_session_reply",
      { wait: waitId, reply: "yes", expected_revision: await revision() },
      WRITER,
    );
    await ledger.call(
      "awr_session_end",
      { session, outcome: "ended", expected_revision: await revision() },
      WRITER,
    );
    const own = await ledger.call("awr_context_bootstrap", { work: "PAY-2" }, WRITER);
    expect(own.context.checkpoint_origin).toBe("previous_closed_session");
    expect(own.rendered_context).toContain("waitDigestSecretA");
    const after = await ledger.call("awr_context_bootstrap", { work: "PAY-2" }, OTHER);
    expect(after.context.checkpoint_origin).toBe("none");
  });

  it("every session call with another client's session or wait is RuleViolation", async () => {
    const rev = await revision();
    const calls: [ToolName, Record<string, unknown>][] = [
      ["awr_session_get", { session }],
      [
        "awr_session_checkpoint",
        { session, context_hash: "h", digest: "d", next_action: "n", expected_revision: rev },
      ],
      [
        "awr_session_wait",
        {
          session,
          question: "q",
          context_hash: "h",
          digest: "d",
          next_action: "n",
          expected_revision: rev,
        },
      ],
      ["awr_session_reply", { wait: waitId, reply: "r", expected_revision: rev }],
      ["awr_session_claim", { session, action: "acquire", expected_revision: rev }],
      ["awr_session_end", { session, outcome: "ended", expected_revision: rev }],
      [
        "awr_session_resume",
        {
          session,
          conversation: "c-b",
          agent: "b",
          provider: "p",
          model: "m",
          expected_revision: rev,
        },
      ],
      [
        "awr_event_append",
        { session, event_type: "note.added", summary: "s", expected_revision: rev },
      ],
      [
        "awr_work_transition",
        { work: "PAY-2", action: "progress", reason: "r", session, expected_revision: rev },
      ],
    ];
    for (const [tool, input] of calls) {
      const error = await failure(ledger.call(tool, input, OTHER));
      expect([tool, error.code]).toEqual([tool, "RuleViolation"]);
      expect(error.message).not.toMatch(SECRETS);
    }
    expect(await revision()).toBe(rev);
  });
});
