import { toolDefinitions } from "@awr/awr-ledger";
import type { JsonSchema } from "@awr/awr-ledger/catalog";
import { describe, expect, it } from "vitest";

// Every tool argument says what it means (an agent has only tools/list to go by), and the whole
// flat tools/list answer stays within 52 KiB (the original bounded its 20-tool catalog at
// 32 KiB; the 0.5 catalog has 32 tools, 34 with awr_projects_list and awr_workstream, and
// grouped discovery, the default, lists 6 KiB), on every transport and with the workstream
// tool listed or not.
const EXPOSURES = [
  { mode: "stdio", workstreams: false },
  { mode: "http", workstreams: false },
  { mode: "http", workstreams: true },
] as const;

const FLAT_LIST_BOUND = 52 * 1024;

describe.each(EXPOSURES)("tools/list on $mode (workstreams: $workstreams)", (exposure) => {
  const tools = toolDefinitions(exposure.mode, { workstreams: exposure.workstreams });

  it("describes every argument of every tool", () => {
    const undescribed = tools.flatMap((tool) =>
      Object.entries(tool.inputSchema.properties as Record<string, JsonSchema>)
        .filter(([, schema]) => (schema.description ?? "").trim() === "")
        .map(([name]) => `${tool.name}.${name}`),
    );
    expect(undescribed).toEqual([]);
    expect(tools.reduce((n, t) => n + Object.keys(t.inputSchema.properties).length, 0)).toBe(
      exposure.mode === "stdio" ? 186 : exposure.workstreams ? 225 : 218,
    );
  });

  it(`stays under ${FLAT_LIST_BOUND} bytes`, () => {
    expect(Buffer.byteLength(JSON.stringify({ tools }))).toBeLessThan(FLAT_LIST_BOUND);
  });
});
