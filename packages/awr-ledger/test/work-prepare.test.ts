import { isLedgerError, LIMITS } from "@awr/awr-ledger";
import { ledgerStore } from "@awr/awr-ledger/testing";
import { afterEach, describe, expect, it } from "vitest";
import { BACKENDS } from "./helpers/backends.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

const caller = { client: "stdio" };
// biome-ignore lint/suspicious/noExplicitAny: the answers are JSON, read field by field.
type Json = Record<string, any>;

/** The fields a read answer carries besides its content. */
const POLICY = ["ok", "freshness_basis", "source_refresh_performed", "read_only"];
const content = (answer: Json): Json =>
  Object.fromEntries(Object.entries(answer).filter(([key]) => !POLICY.includes(key)));
const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

describe.each(BACKENDS)("awr_work_prepare on %s", (backend) => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  const open = async () => {
    p = await openFixtureProject("basic", backend);
    return p.ledger;
  };
  const revision = () => ledgerStore((p as OpenProject).ledger).currentRevision();
  const prepare = (args: Json): Promise<Json> =>
    (p as OpenProject).ledger.execute("awr_work_prepare", args, caller) as Promise<Json>;
  /** The answer of a call that fails, with its error. */
  const refused = async (args: Json) => {
    try {
      await prepare(args);
    } catch (error) {
      if (isLedgerError(error)) return error;
      throw error;
    }
    throw new Error("expected a LedgerError");
  };

  it("answers readiness and the packet awr_context_compile answers, and writes nothing", async () => {
    const ledger = await open();
    const before = await revision();
    const events = await ledger.execute("awr_event_append", {
      expected_revision: before,
      event_type: "note.test",
      summary: "a marker before preparing",
    });
    const at = Number((events as Json)["project_revision"]);
    const prepared = await prepare({ work: "PAY-2", goals: ["goal#checkout"] });
    expect(prepared).toMatchObject({
      ok: true,
      version: 1,
      stage: "prepared",
      work: { external_key: "PAY-2", status: "ready", source_ref: { path: "work-ledger.yaml" } },
      ready: true,
      active_claims: [],
      context_consumed: false,
      completion_claimed: false,
      continuity: { state: "available", waits: [] },
      next_action: "consume_context_then_start_or_resume_session",
      read_only: true,
      source_refresh_performed: false,
    });
    const compiled = await ledger.execute(
      "awr_context_compile",
      { work: "PAY-2", detached: true, goals: ["goal#checkout"] },
      caller,
    );
    expect(prepared["context"]).toEqual(content(compiled as Json));
    // Preparing claims, starts and records nothing: the revision stays where the marker left it.
    expect(await revision()).toBe(at);
    await prepare({ work: "PAY-2", goals: ["goal#checkout"], response_view: "action" });
    await prepare({ work: "PAY-2", goals: ["goal#checkout"], response_view: "summary" });
    expect(await revision()).toBe(at);
    const sessions = (await ledger.execute("awr_session_list", {}, caller)) as Json;
    expect(sessions["sessions"]).toEqual([]);
  });

  it("summary leaves out the packet's indexes and says where the full answer is", async () => {
    await open();
    const args = { work: "PAY-2", goals: ["goal#checkout"], budget: 4000 };
    const full = await prepare(args);
    const summary = await prepare({ ...args, response_view: "summary" });
    expect(summary["context"]["work_context"]).not.toHaveProperty("selected_chunks");
    expect(summary["context"]["work_context"]).not.toHaveProperty("selected_entities");
    expect(summary["context"]["work_context"]["context_hash"]).toBe(
      full["context"]["work_context"]["context_hash"],
    );
    expect(summary["context"]["work_context"]["rendered_context"]).toBe(
      full["context"]["work_context"]["rendered_context"],
    );
    expect(summary["response_view"]).toEqual({
      version: 1,
      view: "summary",
      omitted_fields: [
        "context.work_context.selected_chunks",
        "context.work_context.selected_entities",
      ],
      full_result: { tool: "awr_work_prepare", arguments: args, basis: expect.any(String) },
    });
    expect(full).not.toHaveProperty("response_view");
    expect(full).not.toHaveProperty("guidance");
  });

  it("action adds one guidance card within its bound and drops what the answer repeats", async () => {
    await open();
    const args = { work: "PAY-2", goals: ["goal#checkout"] };
    const summary = await prepare({ ...args, response_view: "summary" });
    const action = await prepare({ ...args, response_view: "action" });
    expect(Object.keys(action["guidance"]).sort()).toEqual([
      "basis",
      "next_action",
      "recheck",
      "when",
    ]);
    expect(bytes(action["guidance"])).toBeLessThanOrEqual(LIMITS.actionGuidanceBytes);
    expect(LIMITS.actionGuidanceBytes).toBe(1024);
    expect(action["response_view"]).toMatchObject({
      version: 1,
      view: "action",
      guidance_max_bytes: 1024,
      omitted_fields: expect.arrayContaining([
        "context.work_context.selected_chunks",
        "context.completeness.source_versions",
        "next_action",
      ]),
      full_result: { tool: "awr_work_prepare", arguments: args },
    });
    expect(action).not.toHaveProperty("next_action");
    expect(action["context"]["completeness"]).not.toHaveProperty("source_versions");
    // The identity keeps the source versions, and the packet is the same packet.
    expect(action["context"]["work_context"]["identity"]["source_versions"]).toEqual(
      summary["context"]["completeness"]["source_versions"],
    );
    expect(action["context"]["work_context"]["context_hash"]).toBe(
      summary["context"]["work_context"]["context_hash"],
    );
    expect(bytes(action)).toBeLessThan(bytes(summary));
  });

  it("an incomplete preparation is ContextIncomplete with the whole answer, never shortened", async () => {
    await open();
    const error = await refused({
      work: "INV-1",
      goals: ["goal#invoices"],
      response_view: "action",
    });
    expect(error.code).toBe("ContextIncomplete");
    const result = error.result as Json;
    expect(result).toMatchObject({
      ok: false,
      stage: "prepared",
      next_action: "resolve_required_context_gaps",
      context: { completeness: { complete: false } },
      response_view: { view: "action", omitted_fields: [] },
      error: { code: "ContextIncomplete" },
    });
    expect(result["guidance"]["when"]).toMatch(/gaps/);
    expect(result["response_view"]).not.toHaveProperty("full_result");
    expect(result["context"]["work_context"]).toHaveProperty("selected_chunks");
    const summary = await refused({
      work: "INV-1",
      goals: ["goal#invoices"],
      response_view: "summary",
    });
    expect(summary.result).not.toHaveProperty("response_view");
  });

  it("an unknown work item is NotFound; a view outside the enum is InvalidInput", async () => {
    await open();
    expect((await refused({ work: "NOPE-1" })).code).toBe("NotFound");
    expect((await refused({ work: "PAY-2", response_view: "brief" })).code).toBe("InvalidInput");
    expect((await refused({ work: "PAY-2", budget: 0 })).code).toBe("InvalidInput");
    expect((await refused({ work: "PAY-2", request_id: "r-1" })).code).toBe("InvalidInput");
  });

  it("with the session that holds the claim: not ready, yet the guidance is to carry on; a wait comes first", async () => {
    const ledger = await open();
    const started = (await ledger.call("awr_session_start", {
      work: "PAY-2",
      conversation: "conv-prepare",
      agent: "agent-a",
      provider: "provider-a",
      model: "model-a",
      claim: true,
      expected_revision: await revision(),
    })) as Json;
    const session = started["session"]["id"] as string;
    const at = await revision();
    const own = await prepare({
      work: "PAY-2",
      session,
      goals: ["goal#checkout"],
      response_view: "action",
    });
    expect(own["ready"]).toBe(false);
    expect(own["active_claims"]).toEqual([expect.objectContaining({ session_id: session })]);
    expect(own["diagnostics"].map((d: Json) => d["code"])).toContain("active_claim");
    expect(own["guidance"]["when"]).toMatch(/complete/);
    expect(await revision()).toBe(at);

    const full = await prepare({ work: "PAY-2", session, goals: ["goal#checkout"] });
    expect(full["next_action"]).toBe("inspect_readiness_and_current_claim");
    await ledger.call("awr_session_wait", {
      session,
      question: "Which provider account?",
      digest: "Drafted the redirect.",
      next_action: "Configure the provider",
      context_hash: full["context"]["work_context"]["context_hash"],
      expected_revision: await revision(),
    });
    const waiting = await prepare({
      work: "PAY-2",
      session,
      goals: ["goal#checkout"],
      response_view: "action",
    });
    expect(waiting["continuity"]["state"]).toBe("waiting_user");
    expect(waiting["continuity"]["waits"]).toEqual([
      expect.objectContaining({ status: "waiting_user", session_id: session }),
    ]);
    expect(waiting["guidance"]["next_action"]).toMatch(/reply/);
    const plain = await prepare({ work: "PAY-2", session, goals: ["goal#checkout"] });
    expect(plain["next_action"]).toBe("resolve_persistent_wait_before_resuming");
  });
});

describe.each(BACKENDS)("awr_work_transition response_view on %s", (backend) => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });
  const revision = () => ledgerStore((p as OpenProject).ledger).currentRevision();

  it("summary drops the event payload, keeps the outcome, and the journal keeps the full answer", async () => {
    p = await openFixtureProject("basic", backend);
    const ledger = p.ledger;
    const started = (await ledger.call("awr_session_start", {
      work: "PAY-2",
      conversation: "conv-transition",
      agent: "agent-a",
      provider: "provider-a",
      model: "model-a",
      claim: true,
      expected_revision: await revision(),
    })) as Json;
    const session = started["session"]["id"] as string;
    const args = {
      work: "PAY-2",
      action: "progress",
      session,
      reason: "starting the redirect endpoint",
      expected_revision: await revision(),
    };
    let error: unknown;
    await ledger
      .execute("awr_work_transition", { ...args, response_view: "summary" })
      .catch((e: unknown) => {
        error = e;
      });
    expect(isLedgerError(error, "InvalidInput")).toBe(true);
    expect(String((error as Error).message)).toMatch(/request_id/);

    const summary = (await ledger.execute("awr_work_transition", {
      ...args,
      request_id: "progress-1",
      response_view: "summary",
    })) as Json;
    expect(summary).toMatchObject({
      ok: true,
      proposal: { status: "applied", action: "progress" },
      event: { outcome: { released_claim_ids: [] } },
      response_view: {
        version: 1,
        view: "summary",
        omitted_fields: ["event.payload"],
        full_result: { tool: "awr_operation_get", arguments: { request_id: "progress-1" } },
      },
    });
    expect(summary["event"]).not.toHaveProperty("payload");

    // The view is not part of the request: the same request with the full view replays it.
    const replay = (await ledger.execute("awr_work_transition", {
      ...args,
      request_id: "progress-1",
    })) as Json;
    expect(replay["replayed"]).toBe(true);
    expect(replay["event"]["id"]).toBe(summary["event"]["id"]);
    expect(replay["event"]["payload"]).toMatchObject({
      action: "progress",
      released_claim_ids: [],
    });
    expect(replay).not.toHaveProperty("response_view");
    const recorded = (await ledger.execute("awr_operation_get", {
      request_id: "progress-1",
    })) as Json;
    expect(JSON.stringify(recorded)).toContain('"payload"');
    expect(JSON.stringify(recorded)).not.toContain("response_view");
  });
});
