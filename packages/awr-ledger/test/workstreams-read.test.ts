import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { workstreamRead } from "@awr/awr-ledger/catalog";
import { ledgerStore } from "@awr/awr-ledger/testing";
import {
  assertProjectToolAllowed,
  type WorkstreamAccess,
  type WorkstreamGrant,
} from "@awr/awr-ledger/workstreams";
import { WORKSTREAM_READ_ACTIONS } from "@awr/ledger-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS } from "./helpers/backends.js";
import { type OpenProject, openFixtureProject, openWorkstreamProject } from "./helpers/projects.js";

const STOREFRONT = "01HZX3W5J8K9M2N4P6Q7R8S9T0";
const PAYMENTS = "01HZX3W5J8K9M2N4P6Q7R8S9T1";
const SHOP = { workstream_id: STOREFRONT, authority_version: 1 };
const PAY = { workstream_id: PAYMENTS, authority_version: 3 };

type Result = Record<string, unknown> & { result: Record<string, unknown> };

describe.each(BACKENDS)("awr_workstream reads (%s)", (backend) => {
  let project: OpenProject;
  const access = (grants: WorkstreamGrant[], client = "reader"): WorkstreamAccess => ({
    project_id: project.ledger.projectId,
    client,
    grants,
  });
  const read = (
    input: Record<string, unknown>,
    grants: WorkstreamGrant[] = [SHOP],
    client?: string,
  ) =>
    workstreamRead(
      project.ledger,
      { protocol_version: 1, ...input },
      access(grants, client),
    ) as Promise<Result>;
  const code = (promise: Promise<unknown>) =>
    promise.then(
      () => "ok",
      (error: { code?: string }) => error.code,
    );

  beforeAll(async () => {
    project = await openWorkstreamProject(backend);
  });
  afterAll(async () => {
    await project?.close();
  });

  it("answers capabilities to anyone, and refuses other protocols and actions as Unsupported", async () => {
    const caps = await workstreamRead(
      project.ledger,
      { protocol_version: 1, action: "capabilities" },
      undefined,
    );
    expect(caps).toMatchObject({ protocol_version: 1, writes: [], team_postgres: false });
    expect(caps["reads"]).toEqual([...WORKSTREAM_READ_ACTIONS]);
    expect(await code(read({ action: "capabilities", args: { x: 1 } }))).toBe("InvalidInput");
    expect(await code(read({ action: "list", work: "SHOP-1" }))).toBe("InvalidInput");
    expect(await code(read({ action: "context", protocol_version: 2 }))).toBe("Unsupported");
    expect(await code(read({ action: "claim" }))).toBe("Unsupported");
    expect(await code(read({ action: "list", grants: [PAY] }))).toBe("InvalidInput");
  });

  it("lists exactly the granted workstreams, and nothing without an exact grant", async () => {
    const one = await read({ action: "list" });
    expect(one).toMatchObject({ ok: true, read_only: true });
    expect((one["workstreams"] as { id: string }[]).map((w) => w.id)).toEqual([STOREFRONT]);
    const both = await read({ action: "list" }, [SHOP, PAY]);
    expect(both["workstreams"]).toEqual([
      expect.objectContaining({ id: STOREFRONT, external_key: "storefront", state: "active" }),
      {
        id: PAYMENTS,
        project_id: project.ledger.projectId,
        external_key: "payments",
        title: "Payments",
        state: "active",
        authority_version: 3,
        goal_keys: ["take-payments"],
        acceptance_contracts: [],
      },
    ]);
    expect(await code(read({ action: "list" }, []))).toBe("WorkstreamAccessDenied");
    expect(
      await code(
        workstreamRead(project.ledger, { protocol_version: 1, action: "list" }, undefined),
      ),
    ).toBe("WorkstreamAccessDenied");
    expect(await code(read({ action: "list" }, [{ ...PAY, authority_version: 2 }]))).toBe(
      "WorkstreamStaleAuthority",
    );
    expect(
      await code(
        read({ action: "list" }, [
          { workstream_id: "01HZX3W5J8K9M2N4P6Q7R8S9T2", authority_version: 1 },
        ]),
      ),
    ).toBe("WorkstreamUnavailable");
    const elsewhere = {
      project_id: "01HZX3W5J8K9M2N4P6Q7R8S9T9",
      client: "reader",
      grants: [SHOP],
    };
    expect(
      await code(
        workstreamRead(project.ledger, { protocol_version: 1, action: "list" }, elsewhere),
      ),
    ).toBe("WorkstreamAccessDenied");
  });

  it("compiles the context of a granted item from its workstream only, in the envelope", async () => {
    const context = await read({ action: "context", work: "SHOP-1", args: { budget: 8000 } });
    expect(context).toMatchObject({
      ok: true,
      read_only: true,
      protocol_version: 1,
      workstream: { id: STOREFRONT, authority_version: 1 },
      project_revision: await ledgerStore(project.ledger).currentRevision(),
    });
    expect(context["scope_binding"]).toMatch(/^[0-9a-f]{64}$/);
    const packet = context.result as {
      work_context: { rendered_context: string };
      completeness: { complete: boolean };
    };
    expect(packet.completeness.complete).toBe(true);
    for (const fact of [
      "Product pages",
      "Open the shop online",
      "Launch week",
      "Review before release",
    ]) {
      expect(packet.work_context.rendered_context).toContain(fact);
    }
    expect(JSON.stringify(context)).not.toMatch(/HIDDEN|PAY-1/);
  });

  it("marks a context incomplete, opaquely, when a required dependency is in another workstream", async () => {
    const context = await read({ action: "context", work: "SHOP-2" });
    expect(context.ok).toBe(false);
    expect(context.result["unavailable_dependencies"]).toEqual([
      { work: "SHOP-2", edge: "SHOP-2/depends_on/unavailable-1" },
    ]);
    expect(JSON.stringify(context)).not.toMatch(/HIDDEN|PAY-1/);
  });

  it("selects the workstream from work or grants, and refuses selectors that disagree", async () => {
    expect(await code(read({ action: "context", work: "PAY-1" }))).toBe("WorkstreamAccessDenied");
    expect(await code(read({ action: "context", work: "NOPE-9" }))).toBe("WorkstreamAccessDenied");
    expect(await code(read({ action: "catalog", args: { kind: "work" } }, [SHOP, PAY]))).toBe(
      "WorkstreamScopeRequired",
    );
    expect(
      await code(read({ action: "context", work: "SHOP-1", workstream: PAYMENTS }, [SHOP, PAY])),
    ).toBe("WorkstreamBindingMismatch");
    expect(await code(read({ action: "context", workstream: "storefront" }))).toBe("InvalidInput");
    const explicit = await read(
      { action: "catalog", workstream: PAYMENTS, args: { kind: "work" } },
      [SHOP, PAY],
    );
    expect(explicit.workstream).toMatchObject({ id: PAYMENTS });
  });

  it("pages the catalog within the scope, with cursors bound to the reader", async () => {
    const first = await read({ action: "catalog", args: { kind: "work", limit: 1 } });
    const page = first.result["page"] as {
      total: number;
      items: { item: { key: string } }[];
      has_more: boolean;
    };
    expect(page).toMatchObject({ total: 2, has_more: true, kind: "work", scope: "active" });
    const cursor = first.result["next_cursor"];
    expect(cursor).toMatchObject({ version: 1, scope_binding: first["scope_binding"] });
    const second = await read({ action: "catalog", args: { kind: "work", limit: 1, cursor } });
    const keys = [page, second.result["page"] as typeof page]
      .map((p) => p.items[0]?.item.key)
      .sort();
    expect(keys).toEqual(["SHOP-1", "SHOP-2"]);
    expect(second.result["next_cursor"]).toBeNull();
    expect(
      await code(
        read({ action: "catalog", args: { kind: "work", limit: 1, cursor } }, [SHOP], "colleague"),
      ),
    ).toBe("WorkstreamAccessDenied");
    expect(await code(read({ action: "catalog", args: { kind: "goal", cursor } }))).toBe(
      "InvalidInput",
    );
    expect(await code(read({ action: "catalog", args: { kind: "source" } }))).toBe("Unsupported");
    const keysOf = async (kind: string) =>
      ((await read({ action: "catalog", args: { kind } })).result["page"] as typeof page).items.map(
        (i) => i.item.key ?? (i.item as unknown as { id: string }).id,
      );
    expect(await keysOf("goal")).toEqual(["shop-online"]);
    expect(await keysOf("plan")).toEqual(["launch"]);
    expect(await keysOf("rule")).toEqual(["rule#review"]);
    expect(await keysOf("relation")).toEqual(["SHOP-2/depends_on/SHOP-1"]);
    expect(await keysOf("artifact")).toEqual([]);
    const retired = await read({ action: "catalog", args: { kind: "work", state: "retired" } });
    expect(retired.result["page"]).toMatchObject({ total: 0, active_total: 2, retired_total: 0 });
  });

  it("searches, and reads objects, only inside the scope", async () => {
    const hidden = await read({ action: "search", args: { text: "hidden_payments" } });
    expect(hidden.result["hits"]).toEqual([]);
    const basket = await read({ action: "search", args: { text: "basket" } });
    expect((basket.result["hits"] as { key: string }[]).map((h) => h.key)).toEqual(["SHOP-2"]);
    const work = await read({ action: "object", args: { kind: "work", reference: "SHOP-1" } });
    expect(work.result).toMatchObject({
      key: "SHOP-1",
      title: "Product pages",
      workstream_id: STOREFRONT,
    });
    expect(await code(read({ action: "object", args: { kind: "work", reference: "PAY-1" } }))).toBe(
      "WorkstreamAccessDenied",
    );
    expect(
      await code(
        read({
          action: "object",
          args: { kind: "artifact", reference: "01HZX3W5J8K9M2N4P6Q7R8S9T2" },
        }),
      ),
    ).toBe("WorkstreamAccessDenied");
    expect(await code(read({ action: "object", args: { kind: "branch", reference: "x" } }))).toBe(
      "Unsupported",
    );
    expect(await code(read({ action: "object", args: { kind: "work" } }))).toBe("InvalidInput");
  });

  it("keeps events, sessions and recovery inside the scope", async () => {
    const sessions: string[] = [];
    for (const work of ["SHOP-1", "PAY-1"]) {
      const started = await project.ledger.call("awr_session_start", {
        work,
        conversation: `conv-${work}`,
        agent: "agent",
        provider: "fixture",
        model: "fixture",
        expected_revision: await ledgerStore(project.ledger).currentRevision(),
      });
      sessions.push(started.session.id);
    }
    const saved = await project.ledger.call("awr_session_checkpoint", {
      session: sessions[0],
      context_hash: "sha256:ctx",
      digest: "digest-of-stdio",
      next_action: "carry on",
      expected_revision: await project.ledger.revision(),
    });
    const checkpointRef = { kind: "checkpoint", reference: saved.checkpoint.id };
    expect(await code(read({ action: "object", args: checkpointRef }))).toBe("RuleViolation");
    expect(await code(read({ action: "object", args: checkpointRef }, [SHOP], "stdio"))).toBe("ok");
    expect(
      await code(
        read({ action: "context", work: "SHOP-1", args: { checkpoint: saved.checkpoint.id } }),
      ),
    ).toBe("RuleViolation");
    const events = await read({ action: "events" });
    expect(JSON.stringify(events)).not.toContain("digest-of-stdio");
    const listed = (
      events.result["page"] as { events: { session_id: string | null; work: string }[] }
    ).events;
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((e) => e.work === "SHOP-1" || e.session_id === sessions[0])).toBe(true);
    expect(JSON.stringify(events)).not.toContain("PAY-1");
    // Sessions are their client's (docs/design/conversation-privacy.md): the writer, `stdio`,
    // recovers its own; another reader of the same workstream gets no candidates and
    // RuleViolation for the session, and sees the session's events without their text.
    const recovery = await read({ action: "recovery" }, [SHOP], "stdio");
    expect((recovery.result["candidates"] as { id: string }[]).map((c) => c.id)).toEqual([
      sessions[0],
    ]);
    const own = await read({ action: "recovery", session: sessions[0] }, [SHOP], "stdio");
    expect(own.result).toMatchObject({
      session: { id: sessions[0], work: "SHOP-1" },
      checkpoint: { id: saved.checkpoint.id, digest: "digest-of-stdio" },
    });
    expect((await read({ action: "recovery" })).result["candidates"]).toEqual([]);
    expect(await code(read({ action: "recovery", session: sessions[0] }))).toBe("RuleViolation");
    expect(
      await code(read({ action: "object", args: { kind: "session", reference: sessions[0] } })),
    ).toBe("RuleViolation");
    expect(JSON.stringify(events)).not.toContain("conv-SHOP-1");
    expect(listed.find((e) => e.session_id === sessions[0])).toMatchObject({
      summary: "session started",
    });
    const ownEvents = await read({ action: "events" }, [SHOP], "stdio");
    expect(JSON.stringify(ownEvents)).toContain("session started by agent on SHOP-1");
    expect(await code(read({ action: "recovery", session: sessions[1] }))).toBe(
      "WorkstreamAccessDenied",
    );
    expect(
      await code(read({ action: "object", args: { kind: "session", reference: sessions[1] } })),
    ).toBe("WorkstreamAccessDenied");
    expect(await code(read({ action: "recovery", args: { x: 1 } }))).toBe("InvalidInput");
    const firstPage = await read({ action: "events", args: { limit: 1 } });
    const next = await read({
      action: "events",
      args: { limit: 1, cursor: firstPage.result["next_cursor"] },
    });
    expect(next.result["page"]).toBeDefined();
  });

  it("answers SourceStale for changed sources, then WorkstreamStaleAuthority for an old grant", async () => {
    const ledgerFile = join(project.root, "work.yaml");
    const text = readFileSync(ledgerFile, "utf8");
    writeFileSync(
      ledgerFile,
      text.replace(
        /(external_key: payments[\s\S]*?)authority_version: 3/,
        "$1authority_version: 4",
      ),
    );
    expect(await code(read({ action: "list" }, [PAY]))).toBe("SourceStale");
    expect(await code(read({ action: "catalog", args: { kind: "work" } }))).toBe("SourceStale");
    await project.ledger.context.reindex();
    expect(await code(read({ action: "context", work: "PAY-1" }, [PAY]))).toBe(
      "WorkstreamStaleAuthority",
    );
    expect(await code(read({ action: "list" }, [{ ...PAY, authority_version: 4 }]))).toBe("ok");
    // Another workstream's authority change leaves a storefront grant as it was.
    expect(await code(read({ action: "catalog", args: { kind: "work" } }))).toBe("ok");
  });

  it("refuses the project's other tools on a project that serves workstreams", async () => {
    const error = await assertProjectToolAllowed(project.ledger, "awr_work_get", undefined).catch(
      (e) => e,
    );
    expect(error).toMatchObject({ code: "Unsupported" });
    expect((error as Error).message).toContain(
      "awr_work_get is not served here: this project serves workstreams",
    );
  });
});

describe.each(BACKENDS)("a project that does not serve workstreams (%s)", (backend) => {
  let project: OpenProject;
  beforeAll(async () => {
    project = await openFixtureProject("basic", backend);
  });
  afterAll(async () => {
    await project?.close();
  });
  const access = (): WorkstreamAccess => ({
    project_id: project.ledger.projectId,
    client: "reader",
    grants: [SHOP],
  });

  it("answers awr_workstream reads Unsupported, and keeps its tools for callers without grants", async () => {
    const error = await workstreamRead(
      project.ledger,
      { protocol_version: 1, action: "list" },
      access(),
    ).catch((e) => e);
    expect(error).toMatchObject({ code: "Unsupported" });
    await expect(
      assertProjectToolAllowed(project.ledger, "awr_work_get", undefined),
    ).resolves.toBeUndefined();
    await expect(
      assertProjectToolAllowed(project.ledger, "awr_work_get", { ...access(), grants: [] }),
    ).resolves.toBeUndefined();
  });

  it("refuses its tools to a caller with workstream grants, and to everyone once enabling is pending", async () => {
    await expect(
      assertProjectToolAllowed(project.ledger, "awr_work_get", access()),
    ).rejects.toMatchObject({
      code: "Unsupported",
      message: expect.stringContaining("your credential has workstream grants on this project"),
    });
    const manifest = join(project.root, ".awr", "project.toml");
    const text = readFileSync(manifest, "utf8");
    writeFileSync(
      manifest,
      text.replace('adapter = "yaml-ledger-v1"', 'adapter = "yaml-workstream-ledger-v1"'),
    );
    try {
      await expect(
        assertProjectToolAllowed(project.ledger, "awr_source_reindex", undefined),
      ).rejects.toMatchObject({
        code: "Unsupported",
      });
    } finally {
      writeFileSync(manifest, text);
    }
  });
});
