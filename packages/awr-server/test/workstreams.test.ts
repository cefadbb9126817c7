import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  enableWorkstreams,
  isWorkstreamsEnabled,
  listWorkstreams,
  parseWorkstream,
  reindexWorkstreams,
  WorkstreamError,
} from "@awr/awr-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeBackend } from "./support/fake-backend.js";
import { type HttpFixture, startFixture, TOKENS } from "./support/http-fixture.js";

const WS = `# Billing migration workstream
workstream_id: billing-migration
authority_version: 2
title: Billing migration
summary: Move invoices to the new ledger.
work_items:
  - id: WS-1
    title: Export invoices
    status: in_progress
    next_action: Write the exporter
    acceptance: [exports every invoice]
  - id: WS-2
    title: Import invoices
    status: planned
    depends_on: [WS-1]
objects:
  - id: DEC-1
    kind: decision
    title: Keep invoice numbers
events:
  - {type: note, work: WS-1, session: s-1, summary: started}
  - {type: note, work: WS-2, summary: planned}
`;

const grants = `
[[clients]]
id = "auditor"
token_env = "T_AUD"

[[clients.workstreams]]
project = "billing"
workstream_id = "billing-migration"
authority_version = 2
`;

let fixture: HttpFixture;
let billing: string;

beforeAll(async () => {
  fixture = await startFixture(fakeBackend(), { version: 2, extra: grants });
  billing = join(fixture.dir, "billing");
  await mkdir(join(billing, "workstreams"), { recursive: true });
  await writeFile(join(billing, "workstreams", "billing.yaml"), WS);
});
afterAll(async () => {
  await fixture?.close();
});

describe("workstream ledgers", () => {
  it("reports malformed YAML with file and line and indexes nothing", async () => {
    const bad = parseWorkstream(
      "workstreams/bad.yaml",
      "workstream_id: x\nauthority_version: 1\ntitle: [unclosed\n",
    );
    expect(bad.workstream).toBeUndefined();
    expect(bad.problems[0]).toMatchObject({
      file: "workstreams/bad.yaml",
      line: expect.any(Number),
    });
    const invalid = parseWorkstream(
      "workstreams/w.yaml",
      "workstream_id: ok\nauthority_version: 0\ntitle: T\nwork_items:\n  - id: A\n    title: a\n    colour: red\n",
    );
    expect(invalid.problems).toEqual([
      {
        file: "workstreams/w.yaml",
        line: 2,
        message: "authority_version: must be a positive integer",
      },
      {
        file: "workstreams/w.yaml",
        line: 7,
        message: expect.stringMatching(/^work_items\.0\.colour: unknown field/),
      },
    ]);
  });

  it("refuses to enable a project while any workstream file is invalid, leaving it untouched", async () => {
    await writeFile(join(billing, "workstreams", "zz-broken.yaml"), "workstream_id: [\n");
    const error = await enableWorkstreams(billing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkstreamError);
    expect((error as WorkstreamError).problems[0]?.file).toBe("workstreams/zz-broken.yaml");
    expect(await isWorkstreamsEnabled(billing)).toBe(false);
    expect((await listWorkstreams(billing)).workstreams).toEqual([]);
    await writeFile(
      join(billing, "workstreams", "zz-broken.yaml"),
      WS.replace("billing-migration", "other"),
    );
    await reindexWorkstreams(billing);
  });

  it("serves legacy tools until enabled, then answers them all with Unsupported", async () => {
    const engineering = await fixture.connect(TOKENS.engineering);
    const before = await engineering.callTool({
      name: "awr_project_status",
      arguments: { project: "billing" },
    });
    expect(before.isError).toBeFalsy();
    const enabled = await enableWorkstreams(billing);
    expect(enabled.map((w) => [w.workstream_id, w.authority_version])).toEqual([
      ["billing-migration", 2],
      ["other", 2],
    ]);
    const read = await engineering.callTool({
      name: "awr_project_status",
      arguments: { project: "billing" },
    });
    expect(read.structuredContent).toMatchObject({ code: "Unsupported" });
    const write = await engineering.callTool({
      name: "awr_source_reindex",
      arguments: { project: "billing", expected_revision: 1, request_id: "r" },
    });
    expect(write.structuredContent).toMatchObject({ code: "Unsupported" });
    const elsewhere = await engineering.callTool({
      name: "awr_project_status",
      arguments: { project: "support" },
    });
    expect(elsewhere.isError).toBeFalsy();
  });

  it("lets a granted client read exactly its granted workstream and version", async () => {
    const auditor = await fixture.connect(TOKENS.auditor);
    const { tools } = await auditor.listTools();
    expect(tools).toHaveLength(22);
    const call = (action: string, extra: Record<string, unknown> = {}) =>
      auditor.callTool({
        name: "awr_workstream",
        arguments: { project: "billing", protocol_version: 1, action, ...extra },
      });
    const capabilities = await call("capabilities");
    expect(capabilities.structuredContent).toMatchObject({ writes: [], enabled: true });
    const list = await call("list");
    expect(
      (list.structuredContent as { workstreams: { workstream_id: string }[] }).workstreams.map(
        (w) => w.workstream_id,
      ),
    ).toEqual(["billing-migration"]);
    const context = await call("context", { workstream: "billing-migration", work: "WS-1" });
    expect((context.structuredContent as { rendered_context: string }).rendered_context).toContain(
      "Write the exporter",
    );
    const catalog = await call("catalog", { workstream: "billing-migration" });
    expect(catalog.structuredContent).toMatchObject({
      objects: [{ id: "DEC-1", kind: "decision" }],
    });
    const object = await call("object", { workstream: "billing-migration", args: { id: "WS-2" } });
    expect(object.structuredContent).toMatchObject({
      object: { id: "WS-2", depends_on: ["WS-1"] },
    });
    const events = await call("events", { workstream: "billing-migration", session: "s-1" });
    expect(events.structuredContent).toMatchObject({ events: [{ seq: 1, summary: "started" }] });
    const other = await call("catalog", { workstream: "other" });
    expect(other.structuredContent).toMatchObject({ code: "RuleViolation" });
    const legacy = await auditor.callTool({
      name: "awr_project_status",
      arguments: { project: "billing" },
    });
    expect(legacy.structuredContent).toEqual({
      code: "RuleViolation",
      message: "project access denied",
    });
    const bad = await call("teleport");
    expect(bad.structuredContent).toMatchObject({ code: "InvalidInput" });
  });

  it("denies a project grant alone and a bumped authority_version", async () => {
    const engineering = await fixture.connect(TOKENS.engineering);
    const denied = await engineering.callTool({
      name: "awr_workstream",
      arguments: {
        project: "billing",
        protocol_version: 1,
        action: "context",
        workstream: "billing-migration",
      },
    });
    expect(denied.structuredContent).toMatchObject({ code: "RuleViolation" });
    await writeFile(
      join(billing, "workstreams", "billing.yaml"),
      WS.replace("authority_version: 2", "authority_version: 3"),
    );
    const auditor = await fixture.connect(TOKENS.auditor);
    const stale = await auditor.callTool({
      name: "awr_workstream",
      arguments: { project: "billing", protocol_version: 1, action: "list" },
    });
    expect(stale.structuredContent).toMatchObject({ code: "SourceStale" });
    await reindexWorkstreams(billing);
    const revoked = await auditor.callTool({
      name: "awr_workstream",
      arguments: {
        project: "billing",
        protocol_version: 1,
        action: "catalog",
        workstream: "billing-migration",
      },
    });
    expect(revoked.structuredContent).toMatchObject({ code: "RuleViolation" });
  });

  it("keeps a workstream_id immutable across reindexing", async () => {
    await writeFile(
      join(billing, "workstreams", "billing.yaml"),
      WS.replace("workstream_id: billing-migration", "workstream_id: renamed"),
    );
    const error = await reindexWorkstreams(billing).catch((e: unknown) => e);
    expect((error as WorkstreamError).problems[0]?.message).toMatch(/immutable/);
  });
});
