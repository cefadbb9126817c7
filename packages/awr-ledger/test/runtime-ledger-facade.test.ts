import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isLedgerError, type SessionStartResult, type WriteReceipt } from "@awr/awr-ledger";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ledgerFailure } from "./fixtures/runtime/harness.js";
import { BACKENDS } from "./helpers/backends.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

const caller = { client: "stdio" };

describe.each(BACKENDS)("the runtime through the Ledger facade on %s", (backend) => {
  let p: OpenProject;
  beforeEach(async () => {
    p = await openFixtureProject("basic", backend);
  });
  afterEach(() => p.close());

  const revision = () => p.ledger.store.currentRevision();
  const ledgerFile = () => readFileSync(join(p.root, "work-ledger.yaml"), "utf8");

  it("runs a work item from claim to completion, writing each status into the YAML in place", async () => {
    const original = ledgerFile();
    const start = (await p.ledger.execute(
      "awr_session_start",
      {
        work: "PAY-2",
        conversation: "conv",
        agent: "a",
        provider: "p",
        model: "m",
        claim: true,
        expected_revision: await revision(),
      },
      caller,
    )) as unknown as SessionStartResult & WriteReceipt;
    expect(start.claim?.work).toBe("PAY-2");
    const session = start.session.id;
    await p.ledger.workTransition(
      { work: "PAY-2", action: "progress", session, expected_revision: await revision() },
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
    const status = await p.ledger.projectStatus({}, caller);
    expect(status.counts_by_status).toMatchObject({ in_progress: 1 });
    expect((await p.ledger.workGet({ work: "PAY-2" }, caller)).active_claim?.session).toBe(session);

    for (const [key, level] of [
      ["ev-redirect", "locally_verified"],
      ["ev-webhook", "real_environment_validated"],
    ] as const) {
      await p.ledger.evidenceRecord(
        {
          external_key: key,
          evidence_type: "test-run",
          level,
          summary: key,
          work: "PAY-2",
          expected_revision: await revision(),
        },
        caller,
      );
    }
    const done = await p.ledger.workTransition(
      {
        work: "PAY-2",
        action: "complete",
        session,
        completion: [
          { criterion: "Customer is redirected to the hosted page", evidence: ["ev-redirect"] },
          { criterion: "ac-webhook", evidence: ["ev-webhook"] },
        ],
        expected_revision: await revision(),
      },
      caller,
    );
    expect(done.released_claim?.work).toBe("PAY-2");
    expect(ledgerFile()).toBe(progressed.replace("status: in_progress", "status: completed"));
    expect((await p.ledger.workGet({ work: "PAY-2" }, caller)).work.status).toBe("completed");
  });

  it("refuses a transition with SourceConflict when the YAML changed underneath, leaving the file alone", async () => {
    const edited = `${ledgerFile()}\n# edited by hand\n`;
    writeFileSync(join(p.root, "work-ledger.yaml"), edited);
    const error = await ledgerFailure(
      p.ledger.workTransition(
        {
          work: "INV-1",
          action: "cancel",
          expected_revision: await revision(),
          request_id: "cancel-1",
        },
        caller,
      ),
    );
    expect(error.code).toBe("SourceConflict");
    expect(ledgerFile()).toBe(edited);
    const op = await p.ledger.operationGet({ request_id: "cancel-1" }, caller);
    expect(op).toMatchObject({ outcome: "recorded", write_outcome: "not_committed" });
  });

  it("answers an unknown tool name with Unsupported", async () => {
    const error = await p.ledger.execute("awr_nope", {}, caller).catch((e: unknown) => e);
    expect(isLedgerError(error, "Unsupported")).toBe(true);
  });
});
