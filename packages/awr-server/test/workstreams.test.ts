import { LedgerError } from "@awr/awr-ledger";
import type { WorkstreamAccess } from "@awr/awr-ledger/workstreams";
import { WORKSTREAM_READ_ACTIONS } from "@awr/ledger-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeBackend } from "./support/fake-backend.js";
import { type HttpFixture, startFixture, TOKENS } from "./support/http-fixture.js";

// The server's side of awr_workstream: the registry's grants become the ledger's access, the
// call reaches the ledger unchanged (without `project`), an incomplete context (the ledger's
// ContextIncomplete with the envelope) is an error result, and project tools go through the
// ledger's guard. The reads themselves are the
// ledger's (packages/awr-ledger/test/workstreams-read.test.ts); here a stand-in answers them.
const WS = "01HZX3W5J8K9M2N4P6Q7R8S9T0";

const grants = `
[[clients]]
id = "auditor"
token_env = "T_AUD"
read = ["billing"]

[[clients.workstreams]]
project = "billing"
workstream_id = "${WS}"
authority_version = 2
`;

interface Seen {
  root: string;
  input: Record<string, unknown>;
  access: WorkstreamAccess | undefined;
}
const reads: Seen[] = [];
const guarded: { tool: string; access: WorkstreamAccess | undefined }[] = [];

let fixture: HttpFixture;

beforeAll(async () => {
  const backend = fakeBackend(
    async (tool, input, caller, root, options) => {
      if (tool !== "awr_workstream") return { project_revision: 1, tool, client: caller.client };
      reads.push({ root, input, access: options.workstreamAccess });
      const envelope = {
        ok: input["work"] !== "INCOMPLETE",
        read_only: true,
        protocol_version: 1,
        result: {},
      };
      if (envelope.ok) return envelope;
      throw new LedgerError("ContextIncomplete", "gaps", undefined, { result: envelope });
    },
    () => ({
      async assertProjectToolAllowed(tool, access) {
        guarded.push({ tool, access });
        if (access !== undefined)
          throw new LedgerError("Unsupported", `${tool} is not served here`);
      },
    }),
  );
  fixture = await startFixture(backend, { version: 2, extra: grants });
});
afterAll(async () => {
  await fixture?.close();
});

describe("awr_workstream over the shared service", () => {
  it("lists the original's input schema", async () => {
    const auditor = await fixture.connect(TOKENS.auditor);
    const { tools } = await auditor.listTools();
    // awr_projects_list, the 8 domain tools (grouped discovery) and awr_workstream.
    expect(tools).toHaveLength(10);
    const tool = tools.find((t) => t.name === "awr_workstream");
    expect(tool?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(tool?.inputSchema).toMatchObject({
      type: "object",
      additionalProperties: false,
      required: ["project", "protocol_version", "action"],
      properties: {
        protocol_version: { type: "integer", const: 1 },
        action: {
          type: "string",
          enum: [...WORKSTREAM_READ_ACTIONS],
        },
        workstream: { type: "string" },
        work: { type: "string" },
        session: { type: "string" },
        args: { type: "object" },
      },
    });
  });

  it("hands the ledger the call without project, and the caller's grants on that project", async () => {
    const auditor = await fixture.connect(TOKENS.auditor);
    const result = await auditor.callTool({
      name: "awr_workstream",
      arguments: {
        project: "billing",
        protocol_version: 1,
        action: "context",
        work: "W-1",
        args: { budget: 9 },
      },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ ok: true, read_only: true });
    expect(reads.at(-1)).toEqual({
      root: `${fixture.dir}/billing`,
      input: { protocol_version: 1, action: "context", work: "W-1", args: { budget: 9 } },
      access: {
        project_id: "01BILLING",
        client: "auditor",
        grants: [{ workstream_id: WS, authority_version: 2 }],
      },
    });
    // Another protocol or action is the ledger's to refuse (as Unsupported), not the schema's.
    await auditor.callTool({
      name: "awr_workstream",
      arguments: { project: "billing", protocol_version: 2, action: "claim" },
    });
    expect(reads.at(-1)?.input).toEqual({ protocol_version: 2, action: "claim" });
  });

  it("gives a project-wide grant no workstream access, and refuses grants in the arguments", async () => {
    const engineering = await fixture.connect(TOKENS.engineering);
    await engineering.callTool({
      name: "awr_workstream",
      arguments: { project: "billing", protocol_version: 1, action: "list" },
    });
    expect(reads.at(-1)?.access).toBeUndefined();
    const forged = await engineering.callTool({
      name: "awr_workstream",
      arguments: {
        project: "billing",
        protocol_version: 1,
        action: "list",
        grants: [{ workstream_id: WS, authority_version: 2 }],
      },
    });
    expect(forged.structuredContent).toMatchObject({ code: "InvalidInput" });
    const auditor = await fixture.connect(TOKENS.auditor);
    const elsewhere = await auditor.callTool({
      name: "awr_workstream",
      arguments: { project: "support", protocol_version: 1, action: "list" },
    });
    expect(elsewhere.structuredContent).toEqual({
      code: "RuleViolation",
      message: "project access denied",
    });
  });

  it("serves an incomplete context as an error result that keeps the envelope", async () => {
    const auditor = await fixture.connect(TOKENS.auditor);
    const result = await auditor.callTool({
      name: "awr_workstream",
      arguments: { project: "billing", protocol_version: 1, action: "context", work: "INCOMPLETE" },
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      ok: false,
      read_only: true,
      protocol_version: 1,
      result: {},
    });
  });

  it("runs project tools through the ledger's guard with the caller's grants", async () => {
    const auditor = await fixture.connect(TOKENS.auditor);
    const refused = await auditor.callTool({
      name: "awr_project_status",
      arguments: { project: "billing", view: "full" },
    });
    expect(refused.structuredContent).toMatchObject({
      code: "Unsupported",
      message: "awr_project_status is not served here",
    });
    expect(guarded.at(-1)).toMatchObject({
      tool: "awr_project_status",
      access: { client: "auditor" },
    });
    const engineering = await fixture.connect(TOKENS.engineering);
    const served = await engineering.callTool({
      name: "awr_work_get",
      arguments: { project: "billing", work: "W" },
    });
    expect(served.isError).toBeFalsy();
    expect(guarded.at(-1)).toEqual({ tool: "awr_work_get", access: undefined });
  });

  it("lists each project's workstream grants with the caller's access", async () => {
    const auditor = await fixture.connect(TOKENS.auditor);
    const list = await auditor.callTool({ name: "awr_projects_list", arguments: {} });
    expect((list.structuredContent as { projects: unknown[] }).projects).toEqual([
      {
        key: "billing",
        project_id: "01BILLING",
        access: "read",
        workstreams: [{ workstream_id: WS, authority_version: 2 }],
      },
    ]);
  });
});

describe("awr_workstream on a registry without workstream grants (version 1)", () => {
  it("is neither listed nor served", async () => {
    const plain = await startFixture(fakeBackend(), { version: 1 });
    try {
      const engineering = await plain.connect(TOKENS.engineering);
      const { tools } = await engineering.listTools();
      expect(tools.map((t) => t.name)).not.toContain("awr_workstream");
      const call = engineering.callTool({
        name: "awr_workstream",
        arguments: { project: "billing", protocol_version: 1, action: "list" },
      });
      await expect(call).rejects.toMatchObject({ code: -32601 });
    } finally {
      await plain.close();
    }
  });
});
