import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { expect } from "vitest";

/** Any MCP client, reduced to one tools/call. */
export type CallTool = (
  name: string,
  args: Record<string, unknown>,
) => Promise<{ isError?: boolean | undefined; structuredContent?: unknown }>;

export const sdkCaller =
  (client: Client): CallTool =>
  (name, args) =>
    client.callTool({ name, arguments: args }) as ReturnType<CallTool>;

/** The source revision the day's evidence and completion are bound to. */
const SHA = "f".repeat(40);

async function ok(call: CallTool, name: string, args: Record<string, unknown>) {
  const result = await call(name, args);
  if (result.isError)
    throw new Error(`${name} failed: ${JSON.stringify(result.structuredContent)}`);
  return result.structuredContent as Record<string, unknown>;
}

async function fails(call: CallTool, name: string, args: Record<string, unknown>) {
  const result = await call(name, args);
  if (!result.isError) throw new Error(`${name} unexpectedly succeeded`);
  return result.structuredContent as { code: string; message: string };
}

/**
 * An agent's whole day on work item W-1, through any MCP client: status, ready, session start
 * with claim, context, progress, evidence, checkpoint, wait (which blocks completion) and reply,
 * complete, end. `project` is the registry key over HTTP and undefined on stdio.
 */
export async function runAgentDay(
  client: CallTool,
  options: { project?: string; prefix: string },
): Promise<{ session: string; revision: number }> {
  const p = (args: Record<string, unknown>) =>
    options.project === undefined ? args : { project: options.project, ...args };
  let counter = 0;
  const requestId = () => `${options.prefix}-${++counter}`;
  let revision = 0;
  const write = async (name: string, args: Record<string, unknown>) => {
    const result = await ok(
      client,
      name,
      p({ ...args, expected_revision: revision, request_id: requestId() }),
    );
    expect(result["project_revision"] as number).toBeGreaterThan(revision);
    revision = result["project_revision"] as number;
    return result;
  };

  const status = await ok(client, "awr_project_status", p({}));
  revision = status["project_revision"] as number;
  expect(status["ready_count"]).toBe(2);
  const ready = await ok(client, "awr_work_ready", p({ limit: 10 }));
  expect((ready["ready"] as { external_key: string }[]).length).toBe(2);

  const started = await write("awr_session_start", {
    work: "W-1",
    conversation: `${options.prefix}-conversation`,
    agent: "e2e-agent",
    provider: "example-provider",
    model: "example-model",
    claim: true,
  });
  const session = (started["session"] as { id: string }).id;
  expect(started["claim"]).not.toBeNull();

  const context = await ok(client, "awr_context_compile", p({ work: "W-1", session }));
  const packet = context["work_context"] as { rendered_context: string; context_hash: string };
  expect(typeof packet.rendered_context).toBe("string");
  expect(packet.rendered_context).toContain("Build checkout");

  await write("awr_work_transition", {
    work: "W-1",
    action: "progress",
    session,
    reason: "starting the form",
    next_action: "Wire the payment provider",
  });
  await write("awr_evidence_record", {
    external_key: `${options.prefix}-tests`,
    evidence_type: "test",
    level: "locally_verified",
    summary: "unit tests pass",
    locator: "https://ci.example/run/1",
    source_sha: SHA,
    scope: ["W-1"],
    work: "W-1",
  });
  await write("awr_session_checkpoint", {
    session,
    context_hash: packet.context_hash,
    digest: "form done, tests green",
    next_action: "ask",
  });
  const waited = await write("awr_session_wait", {
    session,
    question: "Ship it?",
    context_hash: packet.context_hash,
    digest: "ready to complete",
    next_action: "complete once answered",
  });

  const completion = {
    version: 1,
    source_sha: SHA,
    acceptance: [{ criterion: "tests pass", evidence: [`${options.prefix}-tests`] }],
  };
  const blocked = await fails(
    client,
    "awr_work_transition",
    p({
      work: "W-1",
      action: "complete",
      session,
      reason: "shipping",
      completion,
      expected_revision: revision,
      request_id: requestId(),
    }),
  );
  expect(blocked.code).toBe("InvalidTransition");

  await write("awr_session_reply", { wait: (waited["wait"] as { id: string }).id, reply: "yes" });
  await write("awr_work_transition", {
    work: "W-1",
    action: "complete",
    session,
    reason: "shipping",
    completion,
  });
  await write("awr_session_end", { session, outcome: "ended" });

  const after = await ok(client, "awr_session_get", p({ session }));
  expect(JSON.stringify(after)).toContain('"ended"');
  return { session, revision };
}
