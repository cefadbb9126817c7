import type { ToolName } from "@awr/awr-ledger";
import { SECRET_DETECTION_CONDITIONS, SYNTHETIC_VALUE } from "@awr/ledger-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS } from "../helpers/backends.js";
import { ledgerFailure } from "../helpers/failures.js";
import { type OpenProject, openFixtureProject } from "../helpers/projects.js";
import { storedText } from "../helpers/stored-text.js";

/**
 * The secret policy on every write (docs/design/secret-boundaries.md, section 2), through
 * `ledger.call` on both backends: each positive case of the condition table in every text field
 * of every write tool is refused with RuleViolation before anything is recorded (no revision, no
 * event, no journal entry: its request_id stays free), and no error or stored row holds the
 * value; each negative case passes through unchanged.
 */

const SECRET = SECRET_DETECTION_CONDITIONS.filter((c) => c.expect === "secret");
const CLEAN = SECRET_DETECTION_CONDITIONS.filter((c) => c.expect === "clean");
const HASH = "a".repeat(64);

type Args = Record<string, unknown>;
/** Each write tool's text fields: the tool input with `text` in that field. */
function fieldsOf(revision: number, session: string): [ToolName, string, (text: string) => Args][] {
  const event = { expected_revision: revision, event_type: "work.observed", summary: "Checked" };
  const evidence = {
    expected_revision: revision,
    external_key: "EV-1",
    evidence_type: "report",
    level: "implemented",
    summary: "Reviewed",
    locator: "report.txt",
    scope: ["PAY-2"],
  };
  const checkpoint = {
    expected_revision: revision,
    session,
    context_hash: HASH,
    digest: "Reviewed",
    next_action: "Continue",
  };
  const start = {
    expected_revision: revision,
    work: "PAY-2",
    conversation: "c",
    agent: "a",
    provider: "p",
    model: "m",
  };
  const transition = {
    expected_revision: revision,
    work: "PAY-2",
    session,
    action: "block",
    reason: "Waiting",
  };
  return [
    ["awr_event_append", "summary", (t) => ({ ...event, summary: t })],
    ["awr_event_append", "payload.body", (t) => ({ ...event, payload: { body: t } })],
    ["awr_event_append", "payload key", (t) => ({ ...event, payload: { [t]: "x" } })],
    ["awr_evidence_record", "summary", (t) => ({ ...evidence, summary: t })],
    ["awr_evidence_record", "locator", (t) => ({ ...evidence, locator: t })],
    ["awr_evidence_record", "command", (t) => ({ ...evidence, command: t })],
    ["awr_evidence_record", "scope", (t) => ({ ...evidence, scope: [t] })],
    ["awr_session_checkpoint", "digest", (t) => ({ ...checkpoint, digest: t })],
    ["awr_session_checkpoint", "next_action", (t) => ({ ...checkpoint, next_action: t })],
    ["awr_session_checkpoint", "open_loops", (t) => ({ ...checkpoint, open_loops: [t] })],
    [
      "awr_session_checkpoint",
      "changed_entities",
      (t) => ({ ...checkpoint, changed_entities: [t] }),
    ],
    ["awr_session_wait", "question", (t) => ({ ...checkpoint, question: t })],
    [
      "awr_session_reply",
      "reply",
      (t) => ({ expected_revision: revision, wait: "01J0000000000000000000000W", reply: t }),
    ],
    ["awr_session_start", "agent", (t) => ({ ...start, agent: t })],
    ["awr_work_transition", "reason", (t) => ({ ...transition, reason: t })],
    ["awr_work_transition", "blocker", (t) => ({ ...transition, blocker: t })],
    ["awr_search", "text", (t) => ({ text: t })],
    ["awr_context_compile", "intent", (t) => ({ work: "PAY-2", intent: t })],
  ];
}

/**
 * What must never appear again: the case's value, or its whole text when the value is a word
 * too short to be told apart from ordinary text (`password: test`).
 */
function telltale({ text, value }: { text: string; value?: string | undefined }): string {
  const secret = value ?? SYNTHETIC_VALUE;
  return secret.length >= 8 ? secret : text;
}

const refusal = (run: Promise<unknown>) =>
  ledgerFailure(run, "accepted a write that holds a credential");

describe.each(BACKENDS)("secret policy on every write, %s", (backend) => {
  let project: OpenProject;
  let session: string;
  const revision = () => project.ledger.revision();

  beforeAll(async () => {
    project = await openFixtureProject("basic", backend);
    const started = await project.ledger.call("awr_session_start", {
      expected_revision: await revision(),
      work: "PAY-2",
      conversation: "secret-boundary",
      agent: "tester",
      provider: "fixture",
      model: "fixture",
      claim: true,
    });
    session = started.session.id;
  });
  afterAll(() => project?.close());

  it.each(SECRET.map((c) => [c.id, c] as const))(
    "refuses %s in every text field of every tool, committing nothing",
    async (_id, condition) => {
      const before = await revision();
      const events = await project.db.db.selectFrom("events").select("seq").execute();
      const fields = fieldsOf(before, session);
      for (const [index, { text, value }] of condition.cases.entries()) {
        for (const [tool, field, build] of fields) {
          const requestId = `secret-${condition.id}-${index}-${tool}-${field}`.replace(/\W/g, "-");
          const args =
            tool.startsWith("awr_search") || tool.startsWith("awr_context")
              ? build(text)
              : { ...build(text), request_id: requestId };
          const error = await refusal(project.ledger.execute(tool, args));
          expect(error.code, `${tool} ${field}: ${JSON.stringify(text)}`).toBe("RuleViolation");
          expect(error.message).toBe(
            `the ${tool} input contains a credential; remove it and pass a reference`,
          );
          expect(error.details).toMatchObject({ policy_version: 3 });
          expect(JSON.stringify(error.toJSON())).not.toContain(telltale({ text, value }));
          if ("request_id" in args) {
            const lookup = await refusal(
              project.ledger.call("awr_operation_get", { request_id: requestId }),
            );
            expect(lookup.code).toBe("NotFound");
          }
        }
      }
      expect(await revision()).toBe(before);
      expect(await project.db.db.selectFrom("events").select("seq").execute()).toEqual(events);
      const stored = await storedText(project.db);
      for (const one of condition.cases) expect(stored).not.toContain(telltale(one));
    },
  );

  it.each(CLEAN.map((c) => [c.id, c] as const))(
    "lets %s through unchanged",
    async (_id, condition) => {
      for (const [index, { text }] of condition.cases.entries()) {
        const appended = await project.ledger.call("awr_event_append", {
          expected_revision: await revision(),
          event_type: "work.observed",
          summary: text,
          payload: { body: text },
        });
        const stored = await project.db.db
          .selectFrom("events")
          .select(["summary", "payload"])
          .where("id", "=", appended.event.id)
          .executeTakeFirstOrThrow();
        expect(stored.summary).toBe(text);
        expect(JSON.parse(stored.payload as string)).toEqual({ body: text });
        await project.ledger.call("awr_session_checkpoint", {
          expected_revision: await revision(),
          session,
          context_hash: HASH,
          digest: text,
          next_action: text,
          open_loops: [text],
        });
        await project.ledger.call("awr_evidence_record", {
          expected_revision: await revision(),
          external_key: `EV-${condition.id}-${index}`,
          evidence_type: "report",
          level: "implemented",
          summary: text,
          locator: "report.txt",
          command: text,
          scope: ["PAY-2"],
        });
        await project.ledger.call("awr_search", { text });
      }
    },
  );
});
