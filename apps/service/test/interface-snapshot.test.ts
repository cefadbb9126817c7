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
 */

type Schema = Record<string, unknown>;
interface ToolFacts {
  annotations: Schema;
  inputSchema: Schema;
}
interface Snapshot {
  stdio: Record<string, ToolFacts>;
  shared: Record<string, ToolFacts>;
}

const SNAPSHOT = JSON.parse(
  readFileSync(new URL("./fixtures/tool-schemas.snapshot.json", import.meta.url), "utf8"),
) as Snapshot;

const NESTED = ["items", "additionalProperties", "propertyNames"] as const;

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
  return found;
}

async function expectSnapshot(client: Client, facts: Record<string, ToolFacts>): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toEqual(Object.keys(facts));
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

const TOKEN = "s".repeat(48);
let dir: string;
let cleanup: () => Promise<void>;
let root: string;
let service: RunningService;
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
});
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await service?.stop();
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

  it("matches tools/list over stdio, and the list stays under the original's 32 KiB", async () => {
    const { client } = await stdioClient(root);
    clients.push(client);
    await expectSnapshot(client, SNAPSHOT.stdio);
    const bytes = Buffer.byteLength(JSON.stringify(await client.listTools()));
    expect(bytes).toBeLessThan(32 * 1024);
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

  it("matches tools/list over shared HTTP, and the list stays under the original's 32 KiB", async () => {
    const client = await httpClient(service.url, TOKEN);
    clients.push(client);
    await expectSnapshot(client, SNAPSHOT.shared);
    const bytes = Buffer.byteLength(JSON.stringify(await client.listTools()));
    expect(bytes).toBeLessThan(32 * 1024);
  });
});
