import { workstreamRead } from "@awr/awr-ledger/catalog";
import type { WorkstreamAccess } from "@awr/awr-ledger/workstreams";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenProject, openWorkstreamProject } from "./helpers/projects.js";

const STOREFRONT = "01HZX3W5J8K9M2N4P6Q7R8S9T0";

describe("awr_workstream's args pass the catalog's schema of their action", () => {
  let project: OpenProject;
  let access: WorkstreamAccess;
  beforeAll(async () => {
    project = await openWorkstreamProject("sqlite");
    access = {
      project_id: project.ledger.projectId,
      client: "reader",
      grants: [{ workstream_id: STOREFRONT, authority_version: 1 }],
    };
  });
  afterAll(async () => {
    await project?.close();
  });

  const refusal = (input: Record<string, unknown>) =>
    workstreamRead(project.ledger, { protocol_version: 1, ...input }, access).then(
      () => undefined,
      (error: { code?: string; message?: string; details?: unknown }) => error,
    );

  it("refuses each action's wrong args with the gate's InvalidInput, naming every one under args", async () => {
    const error = await refusal({
      action: "catalog",
      args: { kind: "work", limit: 0, state: "gone", extra: 1 },
    });
    expect(error?.code).toBe("InvalidInput");
    expect(error?.message).toMatch(/^Invalid arguments for awr_workstream: /);
    expect(error?.details).toEqual({
      issues: [
        { path: "args.limit", message: "must be from 1 to 100" },
        { path: "args.state", message: "must be one of active, retired, all" },
        { path: "args", message: expect.stringContaining("1 unknown") },
      ],
    });
    expect((await refusal({ action: "object", args: { kind: "work" } }))?.details).toEqual({
      issues: [{ path: "args.reference", message: "is required" }],
    });
    expect((await refusal({ action: "events", args: { limit: 1.5 } }))?.details).toEqual({
      issues: [{ path: "args.limit", message: expect.stringContaining("must be") }],
    });
  });

  it("leaves to the read what the original answers as Unsupported", async () => {
    expect((await refusal({ action: "catalog", args: { kind: "source" } }))?.code).toBe(
      "Unsupported",
    );
    expect(
      (await refusal({ action: "catalog", protocol_version: 2, args: { limit: 0 } }))?.code,
    ).toBe("Unsupported");
  });
});
