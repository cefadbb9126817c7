import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readWorkspace } from "../dependency-rules.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const GATE = "packages/awr-ledger/src/catalog/admit-arguments.ts";

/** The shipped source files (src/ only) that call `name(`, with how many times each does. */
function callers(name: string): Record<string, number> {
  const call = new RegExp(`(?<![\\w.]|function )${name}\\(`, "g");
  const found: Record<string, number> = {};
  for (const { path, text } of readWorkspace(root).sources) {
    if (!path.includes("/src/")) continue;
    // Comments may name the function; only code calls it.
    const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    const count = [...code.matchAll(call)].length;
    if (count > 0) found[path] = count;
  }
  return found;
}

describe("a call's arguments pass one gate", () => {
  it("checks them against the catalog schema in the gate alone", () => {
    expect(callers("validateInput")).toEqual({ [GATE]: 1 });
    expect(callers("assertNoSecret")).toEqual({ [GATE]: 1 });
  });

  it("passes each entry through the gate once: the MCP server (stdio and HTTP) and the ledger's dispatch (CLI, API)", () => {
    expect(callers("admitArguments")).toEqual({
      "packages/awr-ledger/src/catalog/dispatch.ts": 1,
      "packages/awr-server/src/server/create-awr-server.ts": 1,
      // workstreamRead, the library's own entry to awr_workstream.
      "packages/awr-ledger/src/catalog/entries/workstream-read-entry.ts": 1,
    });
  });

  it("has no second validator: awr_workstream's args are checked by the catalog's schemas", () => {
    const sources = readWorkspace(root).sources.filter((f) => f.path.includes("/src/"));
    expect(sources.map((f) => f.path)).not.toContain(
      "packages/awr-ledger/src/workstreams/workstream-args.ts",
    );
    expect(sources.filter((f) => f.text.includes("workstream-args")).map((f) => f.path)).toEqual(
      [],
    );
  });

  it("measures a call's depth and size once per entry", () => {
    expect(callers("argumentsProblem")).toEqual({
      [GATE]: 1,
      "packages/awr-server/src/server/create-awr-server.ts": 1,
    });
  });
});
