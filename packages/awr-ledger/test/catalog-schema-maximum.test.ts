import { LIMITS } from "@awr/awr-ledger";
import { ledgerStore } from "@awr/awr-ledger/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BACKENDS } from "./helpers/backends.js";
import { compileL1 } from "./helpers/context.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

/**
 * Inputs at the catalog's maximum of every bound are accepted by the ledger: the schema a host
 * reads and what the ledger stores are the same numbers, so nothing passes the schema and is
 * refused later. Text is made of two-byte characters, so byte limits are what is measured.
 */

const caller = { client: "stdio" };

/** Exactly `n` UTF-8 bytes (n even): "é" is two bytes. */
const bytes = (n: number) => "é".repeat(n / 2);
/** `count` distinct strings of exactly `n` bytes each. */
const list = (count: number, n: number) =>
  Array.from({ length: count }, (_, i) => `${i}`.padStart(8, "0") + bytes(n - 8));

describe.each(BACKENDS)("schema-maximum inputs on %s", (backend) => {
  let p: OpenProject;
  beforeEach(async () => {
    p = await openFixtureProject("basic", backend);
  });
  afterEach(() => p.close());

  const revision = () => ledgerStore(p.ledger).currentRevision();

  it("accepts every write at its bounds and stores the values whole", async () => {
    const longest = { conversation: bytes(LIMITS.idBytes), agent: bytes(LIMITS.idBytes) };
    const started = await p.ledger.call(
      "awr_session_start",
      {
        work: "PAY-2",
        ...longest,
        provider: bytes(LIMITS.idBytes),
        model: bytes(LIMITS.idBytes),
        claim: true,
        ttl_ms: LIMITS.ttlMs.max,
        expected_revision: await revision(),
        request_id: "r".repeat(LIMITS.requestIdBytes),
      },
      caller,
    );
    const session = started.session.id;
    expect(started.session).toMatchObject({ agent_id: longest.agent });

    const event = await p.ledger.call(
      "awr_event_append",
      {
        event_type: "a".repeat(LIMITS.eventTypeBytes),
        summary: bytes(LIMITS.eventSummaryBytes),
        importance: "critical",
        work: "PAY-2",
        session,
        payload: {
          command: "c".repeat(4096),
          report: "r".repeat(4096),
          status: "s".repeat(128),
          tags: list(32, 128),
          changed_entities: list(256, 512),
          metrics: Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`m${i}`, i])),
          detail: bytes(512 * 1024),
        },
        expected_revision: await revision(),
      },
      caller,
    );
    expect(event.event.summary).toBe(bytes(LIMITS.eventSummaryBytes));

    const text = bytes(LIMITS.textBytes);
    const evidence = await p.ledger.call(
      "awr_evidence_record",
      {
        external_key: bytes(LIMITS.idBytes),
        evidence_type: bytes(LIMITS.idBytes),
        level: "released",
        summary: text,
        locator: text,
        command: text,
        scope: list(LIMITS.listItems, 1024),
        sha256: "f".repeat(64),
        source_sha: "a".repeat(64),
        verified_at: 8_640_000_000_000_000,
        work: "PAY-2",
        expected_revision: await revision(),
      },
      caller,
    );
    expect(evidence.evidence).toMatchObject({ summary: text, command: text });
    expect(evidence.evidence.scope).toHaveLength(LIMITS.listItems);

    const moved = await p.ledger.call(
      "awr_work_transition",
      {
        work: "PAY-2",
        action: "progress",
        session,
        reason: text,
        summary: text,
        next_action: text,
        expected_revision: await revision(),
      },
      caller,
    );
    expect(moved.proposal.status).toBe("applied");
    const work = await p.ledger.call("awr_work_get", { work: "PAY-2" }, caller);
    expect(work.work.next_action).toBe(text);

    await p.ledger.call(
      "awr_session_checkpoint",
      {
        session,
        context_hash: bytes(LIMITS.idBytes),
        digest: text,
        next_action: text,
        open_loops: list(LIMITS.listItems, 1024),
        changed_entities: list(LIMITS.listItems, 256),
        expected_revision: await revision(),
      },
      caller,
    );
    const waited = await p.ledger.call(
      "awr_session_wait",
      {
        session,
        question: bytes(8192),
        context_hash: bytes(LIMITS.idBytes),
        digest: text,
        next_action: text,
        open_loops: list(LIMITS.listItems, 1024),
        expected_revision: await revision(),
      },
      caller,
    );
    const replied = await p.ledger.call(
      "awr_session_reply",
      { wait: waited.wait.id, reply: text, expected_revision: await revision() },
      caller,
    );
    expect(replied.wait.reply).toBe(text);
  });

  it("accepts every read at its bounds", async () => {
    const most = { limit: LIMITS.limit.max };
    expect((await p.ledger.call("awr_work_ready", most, caller)).ready_total).toBe(1);
    const found = await p.ledger.call(
      "awr_search",
      { text: `hosted ${bytes(LIMITS.searchTextBytes - 8)}`, ...most },
      caller,
    );
    expect(Array.isArray(found.hits)).toBe(true);
    // Unknown goals make the packet incomplete (ContextIncomplete with the packet), never
    // InvalidInput: the arguments themselves are accepted.
    const context = await compileL1(p.ledger, {
      work: "PAY-2",
      budget: LIMITS.budget.max,
      goals: list(LIMITS.listItems, 64),
      tags: list(LIMITS.listItems, 64),
      intent: bytes(LIMITS.textBytes),
    });
    expect(context.work_context?.identity.work_item_key).toBe("PAY-2");
    const sessions = await p.ledger.call(
      "awr_session_list",
      { ...most, before_revision: LIMITS.revisionMax },
      caller,
    );
    expect(sessions.sessions).toEqual([]);
    const status = await p.ledger.call(
      "awr_project_status",
      { work: list(LIMITS.listItems, 64), view: "full" },
      caller,
    );
    expect(status.project_revision).toBe(await revision());
    // The action and summary views select at most 100 work keys (the original's bound).
    const scoped = await p.ledger
      .call("awr_project_status", { work: list(LIMITS.listItems, 64), view: "summary" }, caller)
      .catch((e: { code?: string }) => e);
    expect((scoped as { code?: string }).code).toBe("InvalidInput");
  });
});
