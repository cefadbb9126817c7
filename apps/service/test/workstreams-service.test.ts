import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { initProject, openLedger } from "@awr/awr-ledger";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { useClientSet } from "./support/client-set.js";
import { makeProject } from "./support/projects.js";
import { fails, ok } from "./support/service-process.js";
import { useSharedService } from "./support/shared-service.js";

// The shared service serving a project in the original's workstream format (the two-stream
// fixture of packages/awr-ledger/test/fixtures/workstreams) to clients of a version 2
// registry, through the official SDK client: an exact grant, both grants, a project-wide grant
// alone, and a grant at an outdated authority_version.
const FIXTURE = fileURLToPath(
  new URL("../../../packages/awr-ledger/test/fixtures/workstreams", import.meta.url),
);
const STOREFRONT = "01HZX3W5J8K9M2N4P6Q7R8S9T0";
const PAYMENTS = "01HZX3W5J8K9M2N4P6Q7R8S9T1";
const TOKENS = {
  storefront: "s".repeat(48),
  lead: "l".repeat(48),
  everyone: "e".repeat(48),
  stale: "t".repeat(48),
};

const set = useClientSet("awr-service-workstreams-");
let shop: string;
const shared = useSharedService(set, async (dir) => {
  shop = join(dir, "shop");
  await cp(FIXTURE, shop, { recursive: true });
  const init = await initProject({
    root: shop,
    manifest: join(shop, "project.toml"),
    accept: true,
  });
  const other = await makeProject(dir, "other");
  const grant = (id: string, version: number) =>
    `\n[[clients.workstreams]]\nproject = "shop"\nworkstream_id = "${id}"\nauthority_version = ${version}\n`;
  const lines = [
    "version = 2",
    `[[projects]]\nkey = "shop"\nroot = "${shop}"\nproject_id = "${init.project_id}"`,
    `[[projects]]\nkey = "other"\nroot = "${other.root}"\nproject_id = "${other.project_id}"`,
    `[[clients]]\nid = "storefront"\ntoken_env = "T_STOREFRONT"\nread = ["shop"]${grant(STOREFRONT, 1)}`,
    `[[clients]]\nid = "lead"\ntoken_env = "T_LEAD"\nread = ["shop"]${grant(STOREFRONT, 1)}${grant(PAYMENTS, 3)}`,
    `[[clients]]\nid = "everyone"\ntoken_env = "T_EVERYONE"\nwrite = ["shop", "other"]`,
    `[[clients]]\nid = "stale"\ntoken_env = "T_STALE"\nread = ["shop"]${grant(PAYMENTS, 2)}`,
  ];
  const file = join(dir, "service.toml");
  await writeFile(file, `${lines.join("\n\n")}\n`, { mode: 0o600 });
  return {
    file,
    env: {
      T_STOREFRONT: TOKENS.storefront,
      T_LEAD: TOKENS.lead,
      T_EVERYONE: TOKENS.everyone,
      T_STALE: TOKENS.stale,
    },
  };
});

const client = (token: string): Promise<Client> => shared.connect(token);
const ws = (action: string, extra: Record<string, unknown> = {}) => ({
  project: "shop",
  protocol_version: 1,
  action,
  ...extra,
});

describe("workstreams over the shared HTTP service (registry version 2)", () => {
  it("lists each client exactly its granted workstreams", async () => {
    const storefront = await client(TOKENS.storefront);
    const { tools } = await storefront.listTools();
    expect(tools.map((t) => t.name)).toContain("awr_workstream");
    const ids = async (c: Client) =>
      ((await ok(c, "awr_workstream", ws("list")))["workstreams"] as { id: string }[]).map(
        (w) => w.id,
      );
    expect(await ids(storefront)).toEqual([STOREFRONT]);
    expect(await ids(await client(TOKENS.lead))).toEqual([STOREFRONT, PAYMENTS]);
    expect((await fails(await client(TOKENS.everyone), "awr_workstream", ws("list"))).code).toBe(
      "WorkstreamAccessDenied",
    );
    expect((await fails(await client(TOKENS.stale), "awr_workstream", ws("list"))).code).toBe(
      "WorkstreamStaleAuthority",
    );
  });

  it("serves the context of a granted item in the original's envelope, and nothing of the other stream", async () => {
    const storefront = await client(TOKENS.storefront);
    const context = await ok(
      storefront,
      "awr_workstream",
      ws("context", { work: "SHOP-1", args: { budget: 8000 } }),
    );
    expect(Object.keys(context)).toEqual([
      "ok",
      "read_only",
      "protocol_version",
      "workstream",
      "scope_binding",
      "project_revision",
      "result",
    ]);
    expect(context).toMatchObject({ ok: true, read_only: true, workstream: { id: STOREFRONT } });
    expect(
      (context["result"] as { work_context: { rendered_context: string } }).work_context
        .rendered_context,
    ).toContain("Product pages");
    expect(JSON.stringify(context)).not.toMatch(/HIDDEN|PAY-1/);
    const incomplete = await storefront.callTool({
      name: "awr_workstream",
      arguments: ws("context", { work: "SHOP-2" }),
    });
    expect(incomplete.isError).toBe(true);
    expect(incomplete.structuredContent).toMatchObject({
      ok: false,
      workstream: { id: STOREFRONT },
    });
  });

  it("answers the workstream error codes", async () => {
    const storefront = await client(TOKENS.storefront);
    const lead = await client(TOKENS.lead);
    const code = async (c: Client, args: Record<string, unknown>) =>
      (await fails(c, "awr_workstream", args)).code;
    expect(await code(storefront, ws("context", { work: "PAY-1" }))).toBe("WorkstreamAccessDenied");
    expect(await code(lead, ws("catalog", { args: { kind: "work" } }))).toBe(
      "WorkstreamScopeRequired",
    );
    expect(await code(lead, ws("context", { work: "SHOP-1", workstream: PAYMENTS }))).toBe(
      "WorkstreamBindingMismatch",
    );
    expect(await code(lead, ws("context", { protocol_version: 2 }))).toBe("Unsupported");
    const page = await ok(
      lead,
      "awr_workstream",
      ws("catalog", { workstream: STOREFRONT, args: { kind: "work", limit: 1 } }),
    );
    const cursor = (page["result"] as { next_cursor: unknown }).next_cursor;
    expect(
      await code(storefront, ws("catalog", { args: { kind: "work", limit: 1, cursor } })),
    ).toBe("WorkstreamAccessDenied");
  });

  it("refuses the project's other tools on the workstream project only", async () => {
    const everyone = await client(TOKENS.everyone);
    for (const [name, args] of [
      ["awr_project_status", { project: "shop", view: "full" }],
      ["awr_work_get", { project: "shop", work: "SHOP-1" }],
      ["awr_source_reindex", { project: "shop", expected_revision: 1, request_id: "r-1" }],
    ] as const) {
      expect((await fails(everyone, name, args)).code).toBe("Unsupported");
    }
    expect(
      (await ok(everyone, "awr_project_status", { project: "other", view: "full" }))[
        "project_revision"
      ],
    ).toBeTypeOf("number");
    expect(
      (
        await fails(await client(TOKENS.storefront), "awr_work_get", {
          project: "shop",
          work: "SHOP-1",
        })
      ).code,
    ).toBe("Unsupported");
  });

  it("answers SourceStale for an edited ledger, then WorkstreamStaleAuthority after its reindex", async () => {
    const lead = await client(TOKENS.lead);
    const file = join(shop, "work.yaml");
    const text = await readFile(file, "utf8");
    await writeFile(
      file,
      text.replace(
        /(external_key: payments[\s\S]*?)authority_version: 3/,
        "$1authority_version: 4",
      ),
    );
    expect((await fails(lead, "awr_workstream", ws("list"))).code).toBe("SourceStale");
    const ledger = await openLedger({ root: shop });
    try {
      await ledger.context.reindex();
    } finally {
      await ledger.close();
    }
    expect((await fails(lead, "awr_workstream", ws("context", { work: "PAY-1" }))).code).toBe(
      "WorkstreamStaleAuthority",
    );
    // The storefront grant is unaffected by another workstream's new authority.
    const storefront = await client(TOKENS.storefront);
    expect(
      (await ok(storefront, "awr_workstream", ws("catalog", { args: { kind: "work" } })))["ok"],
    ).toBe(true);
  });
});
