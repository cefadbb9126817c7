import { readFileSync } from "node:fs";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeProject, tempDir, writeRegistry } from "./support/projects.js";
import {
  httpClient,
  killAll,
  type RunningService,
  startHttpService,
  stdioClient,
} from "./support/service-process.js";

/**
 * The tool interface against a checked-in snapshot of the original AWR's published schemas
 * (fixtures/tool-schemas.snapshot.json, written by hand from them): every tool's name, order,
 * annotations and input schema facts (types, enums, defaults, bounds, required lists), as the
 * real awr-mcp lists them over stdio and over HTTP. Descriptions are not compared. Where we add a
 * bound the original leaves open, the snapshot says so under "ours", and each such addition must
 * be a tightening that normal use never meets (docs/design/operation-catalog.md).
 * Both exposures are checked: the flat catalog (AWR_MCP_TOOL_EXPOSURE_MODE=flat) tool by tool,
 * and grouped discovery's domain tools, whose manifests must hold exactly the snapshot's
 * children with the flat catalog's schemas.
 */

type Schema = Record<string, unknown>;
interface ToolFacts {
  annotations: Schema;
  inputSchema: Schema;
}
interface Snapshot {
  stdio: Record<string, ToolFacts>;
  shared: Record<string, ToolFacts>;
  grouped: {
    children: Record<string, string[]>;
    stdio: Record<string, ToolFacts>;
    shared: Record<string, ToolFacts>;
  };
}

const SNAPSHOT = JSON.parse(
  readFileSync(new URL("./fixtures/tool-schemas.snapshot.json", import.meta.url), "utf8"),
) as Snapshot;

const NESTED = ["items", "additionalProperties", "propertyNames"] as const;
/** Keywords holding a list of alternative schemas (the change tools' `change`). */
const ALTERNATIVES = ["oneOf"] as const;

/** Applies `fn` to a schema and every schema nested in it. */
function mapSchema(schema: Schema, fn: (s: Schema) => Schema): Schema {
  const out = fn(schema);
  if (typeof out["properties"] === "object" && out["properties"] !== null) {
    out["properties"] = Object.fromEntries(
      Object.entries(out["properties"] as Record<string, Schema>).map(([k, v]) => [
        k,
        mapSchema(v, fn),
      ]),
    );
  }
  for (const key of NESTED) {
    const nested = out[key];
    if (typeof nested === "object" && nested !== null) out[key] = mapSchema(nested as Schema, fn);
  }
  for (const key of ALTERNATIVES) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map((alt) => mapSchema(alt as Schema, fn));
  }
  return out;
}

const sortRequired = (s: Schema): Schema =>
  Array.isArray(s["required"]) ? { ...s, required: [...(s["required"] as string[])].sort() } : s;

/** What we must list: the original's facts with our tightenings applied. */
function expected(schema: Schema): Schema {
  return mapSchema(schema, (s) => {
    const { ours, ...rest } = s as Schema & { ours?: Schema };
    return sortRequired({ ...rest, ...ours });
  });
}

/** What we list, minus the prose. */
function listed(schema: Schema): Schema {
  return mapSchema(schema, (s) => {
    const { description: _description, ...rest } = s;
    return sortRequired(rest);
  });
}

/** Every "ours" addition that is not a tightening of the original's bound, by path. */
function looseAdditions(schema: Schema, path: string, found: string[]): string[] {
  const ours = (schema["ours"] ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(ours)) {
    const original = schema[key] as number | string | undefined;
    const tighter = ["maxLength", "maxItems", "maxProperties", "maximum"].includes(key)
      ? typeof value === "number" && (original === undefined || value <= (original as number))
      : ["minLength", "minItems", "minimum"].includes(key)
        ? typeof value === "number" && (original === undefined || value >= (original as number))
        : key === "pattern" && original === undefined;
    if (!tighter) found.push(`${path}.${key}`);
  }
  for (const [name, child] of Object.entries(
    (schema["properties"] ?? {}) as Record<string, Schema>,
  ))
    looseAdditions(child, `${path}.${name}`, found);
  for (const key of NESTED) {
    const nested = schema[key];
    if (typeof nested === "object" && nested !== null)
      looseAdditions(nested as Schema, `${path}[${key}]`, found);
  }
  for (const key of ALTERNATIVES) {
    const list = schema[key];
    if (!Array.isArray(list)) continue;
    for (const [i, alt] of list.entries())
      looseAdditions(alt as Schema, `${path}[${key} ${i}]`, found);
  }
  return found;
}

async function expectSnapshot(client: Client, facts: Record<string, ToolFacts>): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toEqual(Object.keys(facts));
  expectFacts(tools as Listed[], facts);
}

type Listed = { name: string; annotations?: unknown; inputSchema: unknown };

function expectFacts(tools: readonly Listed[], facts: Record<string, ToolFacts>): void {
  for (const tool of tools) {
    const want = facts[tool.name] as ToolFacts;
    expect({ tool: tool.name, annotations: tool.annotations }).toEqual({
      tool: tool.name,
      annotations: want.annotations,
    });
    expect({ tool: tool.name, input: listed(tool.inputSchema as Schema) }).toEqual({
      tool: tool.name,
      input: expected(want.inputSchema),
    });
  }
}

/** Every domain's manifest holds its snapshot children, each with the flat tool's facts. */
async function expectManifests(
  client: Client,
  flat: Record<string, ToolFacts>,
  project?: string,
): Promise<void> {
  for (const [domain, children] of Object.entries(SNAPSHOT.grouped.children)) {
    const result = await client.callTool({
      name: domain,
      arguments: project === undefined ? {} : { project },
    });
    const manifest = result.structuredContent as {
      mode: string;
      domain: string;
      manifest_version: string;
      child_total: number;
      children: { name: string; input_schema: unknown; read_only: boolean }[];
    };
    expect({ domain, isError: result.isError }).toEqual({ domain, isError: false });
    expect(manifest).toMatchObject({ mode: "manifest", domain, manifest_version: "1" });
    expect(manifest.children.map((c) => c.name)).toEqual(children);
    expect(manifest.child_total).toBe(children.length);
    for (const child of manifest.children) {
      const facts = flat[child.name] as ToolFacts;
      expect({ child: child.name, read_only: child.read_only }).toEqual({
        child: child.name,
        read_only: facts.annotations["readOnlyHint"],
      });
      expectFacts(
        [{ name: child.name, annotations: facts.annotations, inputSchema: child.input_schema }],
        flat,
      );
    }
  }
}

const FLAT = { AWR_MCP_TOOL_EXPOSURE_MODE: "flat" };
const TOKEN = "s".repeat(48);
let dir: string;
let cleanup: () => Promise<void>;
let root: string;
let service: RunningService;
let grouped: RunningService;
let flat: RunningService;
const clients: Client[] = [];

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("awr-service-interface-"));
  const project = await makeProject(dir, "iface");
  root = project.root;
  const registry = await writeRegistry(
    dir,
    [{ key: "iface", ...project }],
    [{ id: "one", token: TOKEN, write: ["iface"] }],
  );
  service = await startHttpService(registry.file, registry.env);
  grouped = await startHttpService(registry.file, registry.env);
  flat = await startHttpService(registry.file, { ...registry.env, ...FLAT });
});
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await Promise.allSettled([service?.stop(), grouped?.stop(), flat?.stop()]);
  killAll();
  await cleanup?.();
});

describe("the tool interface snapshot", () => {
  it("adds only tightenings to the original's schemas", () => {
    const loose: string[] = [];
    for (const mode of ["stdio", "shared"] as const) {
      for (const [name, tool] of Object.entries(SNAPSHOT[mode]))
        looseAdditions(tool.inputSchema, `${mode}.${name}`, loose);
    }
    expect(loose).toEqual([]);
  });

  it("the flat catalog (AWR_MCP_TOOL_EXPOSURE_MODE=flat) matches tools/list over stdio, and stays within 48 KiB", async () => {
    const { client } = await stdioClient(root, FLAT);
    clients.push(client);
    await expectSnapshot(client, SNAPSHOT.stdio);
    const bytes = Buffer.byteLength(JSON.stringify(await client.listTools()));
    expect(bytes).toBeLessThanOrEqual(48 * 1024);
  });

  it("answers a CLI-only operation (awr_branch_create) as an unknown tool, -32601", async () => {
    const { client } = await stdioClient(root);
    clients.push(client);
    const error = await client
      .callTool({
        name: "awr_branch_create",
        arguments: { name: "x", actor: "a", reason: "r", expected_revision: 0 },
      })
      .then(
        () => undefined,
        (e: unknown) => e as { code?: number },
      );
    expect(error?.code).toBe(-32601);
  });

  it("the flat catalog matches tools/list over shared HTTP, and stays within 48 KiB", async () => {
    const client = await httpClient(flat.url, TOKEN);
    clients.push(client);
    await expectSnapshot(client, SNAPSHOT.shared);
    const bytes = Buffer.byteLength(JSON.stringify(await client.listTools()));
    expect(bytes).toBeLessThanOrEqual(48 * 1024);
  });

  it("grouped (the default) lists the 8 domain tools over stdio in at most 6 KiB, and each manifest holds the flat children", async () => {
    const { client } = await stdioClient(root);
    clients.push(client);
    await expectSnapshot(client, SNAPSHOT.grouped.stdio);
    expect(Buffer.byteLength(JSON.stringify(await client.listTools()))).toBeLessThanOrEqual(
      6 * 1024,
    );
    await expectManifests(client, SNAPSHOT.stdio);
  });

  it("grouped lists awr_projects_list and the 8 domains over shared HTTP in at most 6 KiB, each manifest with the shared children", async () => {
    const client = await httpClient(grouped.url, TOKEN);
    clients.push(client);
    await expectSnapshot(client, SNAPSHOT.grouped.shared);
    expect(Buffer.byteLength(JSON.stringify(await client.listTools()))).toBeLessThanOrEqual(
      6 * 1024,
    );
    await expectManifests(client, SNAPSHOT.shared, "iface");
  });

  it("the domains' children are the flat catalog, each in exactly one domain", () => {
    const children = Object.values(SNAPSHOT.grouped.children).flat();
    expect(new Set(children).size).toBe(children.length);
    expect([...children].sort()).toEqual(Object.keys(SNAPSHOT.stdio).sort());
    expect(children).toHaveLength(32);
  });
});
