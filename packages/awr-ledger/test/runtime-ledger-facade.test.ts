import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isLedgerError } from "@awr/awr-ledger";
import { ledgerStore } from "@awr/awr-ledger/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ledgerFailure } from "./fixtures/runtime/harness.js";
import { BACKENDS } from "./helpers/backends.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

const caller = { client: "stdio" };
const SHA = "a".repeat(40);

describe.each(BACKENDS)("the runtime through the Ledger facade on %s", (backend) => {
  let p: OpenProject;
  beforeEach(async () => {
    p = await openFixtureProject("basic", backend);
  });
  afterEach(() => p.close());

  const revision = () => ledgerStore(p.ledger).currentRevision();
  const ledgerFile = () => readFileSync(join(p.root, "work-ledger.yaml"), "utf8");
  /** A session of client `caller` on `work` (conversation "conv"), claiming it unless told not to. */
  const startOn = async (work: string, claim = true) =>
    p.ledger.call(
      "awr_session_start",
      {
        work,
        conversation: "conv",
        agent: "a",
        provider: "p",
        model: "m",
        ...(claim ? { claim: true } : {}),
        expected_revision: await revision(),
      },
      caller,
    );

  it("runs a work item from claim to completion, writing each status into the YAML in place", async () => {
    const original = ledgerFile();
    const start = await startOn("PAY-2");
    expect(start.claim?.work).toBe("PAY-2");
    const session = start.session.id;
    await p.ledger.call(
      "awr_work_transition",
      {
        work: "PAY-2",
        action: "progress",
        session,
        reason: "start the work",
        expected_revision: await revision(),
      },
      caller,
    );
    const progressed = ledgerFile();
    expect(progressed).toBe(
      original.replace(
        "    status: ready\n    goal: goal#checkout\n    milestone: M1\n    priority: high",
        "    status: in_progress\n    goal: goal#checkout\n    milestone: M1\n    priority: high",
      ),
    );
    // The ledger's own edit does not make its sources stale.
    const status = await p.ledger.call("awr_project_status", { view: "full" }, caller);
    expect(status.counts).toMatchObject({ in_progress: 1 });
    const claimed = await p.ledger.call("awr_work_get", { work: "PAY-2" }, caller);
    expect(claimed.work.active_claims.map((c) => c.session_id)).toEqual([session]);

    for (const [key, level] of [
      ["ev-redirect", "locally_verified"],
      ["ev-webhook", "real_environment_validated"],
    ] as const) {
      await p.ledger.call(
        "awr_evidence_record",
        {
          external_key: key,
          evidence_type: "test-run",
          level,
          summary: key,
          locator: "https://ci.example/run/1",
          scope: ["PAY-2"],
          source_sha: SHA,
          work: "PAY-2",
          expected_revision: await revision(),
        },
        caller,
      );
    }
    const done = await p.ledger.call(
      "awr_work_transition",
      {
        work: "PAY-2",
        action: "complete",
        session,
        reason: "both criteria verified",
        completion: {
          version: 1,
          source_sha: SHA,
          acceptance: [
            { criterion: "Customer is redirected to the hosted page", evidence: ["ev-redirect"] },
            { criterion: "ac-webhook", evidence: ["ev-webhook"] },
          ],
        },
        expected_revision: await revision(),
      },
      caller,
    );
    expect(done.event.payload["released_claim_ids"]).toEqual([start.claim?.id]);
    expect(ledgerFile()).toBe(progressed.replace("status: in_progress", "status: completed"));
    expect((await p.ledger.call("awr_work_get", { work: "PAY-2" }, caller)).work.status).toBe(
      "completed",
    );
  });

  it("refuses a transition with SourceConflict when the YAML changed underneath, leaving the file alone", async () => {
    const start = await startOn("INV-1", false);
    const edited = `${ledgerFile()}\n# edited by hand\n`;
    writeFileSync(join(p.root, "work-ledger.yaml"), edited);
    const error = await ledgerFailure(
      p.ledger.call(
        "awr_work_transition",
        {
          work: "INV-1",
          action: "cancel",
          session: start.session.id,
          reason: "no longer wanted",
          expected_revision: await revision(),
          request_id: "cancel-1",
        },
        caller,
      ),
    );
    expect(error.code).toBe("SourceConflict");
    expect(ledgerFile()).toBe(edited);
    const op = await p.ledger.call("awr_operation_get", { request_id: "cancel-1" }, caller);
    expect(op).toMatchObject({ outcome: "recorded", write_outcome: "not_committed" });
  });

  it("refuses a transition into a work ledger made read-only, naming the file and the fix, changing nothing", async () => {
    const start = await startOn("PAY-2");
    const file = join(p.root, "work-ledger.yaml");
    chmodSync(file, 0o444);
    const bytes = ledgerFile();
    const before = await revision();
    const progress = async () =>
      p.ledger.call(
        "awr_work_transition",
        {
          work: "PAY-2",
          action: "progress",
          session: start.session.id,
          reason: "start",
          next_action: "build the redirect",
          expected_revision: await revision(),
        },
        caller,
      );
    const error = await ledgerFailure(progress());
    expect(error.code).toBe("RuleViolation");
    expect(error.message).toContain("work-ledger.yaml is read-only (mode 0444)");
    expect(error.message).toContain("nothing was changed");
    expect(error.message).toContain("chmod u+w work-ledger.yaml");
    expect(error.details).toMatchObject({ path: "work-ledger.yaml", mode: "0444" });
    expect(ledgerFile()).toBe(bytes);
    expect(statSync(file).mode & 0o777).toBe(0o444);
    expect(await revision()).toBe(before);
    expect((await p.ledger.call("awr_work_get", { work: "PAY-2" }, caller)).work.status).toBe(
      "ready",
    );

    chmodSync(file, 0o644);
    await progress();
    expect(ledgerFile()).toContain("status: in_progress");
  });

  it("answers an unknown tool name with Unsupported", async () => {
    const error = await p.ledger.execute("awr_nope", {}, caller).catch((e: unknown) => e);
    expect(isLedgerError(error, "Unsupported")).toBe(true);
  });
});
