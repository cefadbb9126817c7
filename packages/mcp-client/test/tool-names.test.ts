import { MAX_TOOL_NAME_LENGTH, qualifyToolName, ToolNameMap } from "@awr/mcp-client";
import { describe, expect, it } from "vitest";

describe("qualified tool names", () => {
  it("are mcp__<server>__<tool> when that is safe and short", () => {
    expect(qualifyToolName("github", "create_issue")).toBe("mcp__github__create_issue");
  });

  it("replace unsafe characters and add a hash so distinct tools never collide", () => {
    const dotted = qualifyToolName("fs", "read.file");
    const underscored = qualifyToolName("fs", "read_file");
    expect(dotted).toMatch(/^mcp__fs__read_file_[0-9a-f]{8}$/);
    expect(underscored).toBe("mcp__fs__read_file");
    expect(dotted).not.toBe(underscored);
  });

  it("are capped at 64 characters with a short hash suffix", () => {
    const long = "x".repeat(100);
    const a = qualifyToolName("server", `${long}a`);
    const b = qualifyToolName("server", `${long}b`);
    expect(a).toHaveLength(MAX_TOOL_NAME_LENGTH);
    expect(b).toHaveLength(MAX_TOOL_NAME_LENGTH);
    expect(a).not.toBe(b);
    expect(a).toMatch(/_[0-9a-f]{8}$/);
  });

  it("stay distinct where a server's name holds the separator or ends in one of its characters", () => {
    // Plain, these pairs would share mcp__a__b__c and mcp__a___x.
    expect(qualifyToolName("a", "b__c")).toBe("mcp__a__b__c");
    expect(qualifyToolName("a__b", "c")).toMatch(/^mcp__a__b__c_[0-9a-f]{8}$/);
    expect(qualifyToolName("a", "_x")).toBe("mcp__a___x");
    expect(qualifyToolName("a_", "x")).toMatch(/^mcp__a___x_[0-9a-f]{8}$/);
    const map = new ToolNameMap();
    const names = [map.add("a", "b__c"), map.add("a__b", "c")];
    expect(new Set(names).size).toBe(2);
    expect(names.map((name) => map.resolve(name))).toEqual([
      { server: "a", tool: "b__c" },
      { server: "a__b", tool: "c" },
    ]);
  });

  it("never hand a name another tool holds to a second one", () => {
    const map = new ToolNameMap();
    const hashed = map.add("fs", "read.file");
    // A tool whose plain name is exactly the first one's hashed name.
    const lookalike = hashed.slice("mcp__fs__".length);
    const second = map.add("fs", lookalike);
    expect(second).not.toBe(hashed);
    expect(map.resolve(hashed)).toEqual({ server: "fs", tool: "read.file" });
    expect(map.resolve(second)).toEqual({ server: "fs", tool: lookalike });
  });

  it("map back to the original server and tool", () => {
    const map = new ToolNameMap();
    const name = map.add("my.server", `${"y".repeat(80)}.tool`);
    expect(map.resolve(name)).toEqual({ server: "my.server", tool: `${"y".repeat(80)}.tool` });
    expect(map.resolve("mcp__other__tool")).toBeUndefined();
    map.removeServer("my.server");
    expect(map.resolve(name)).toBeUndefined();
  });
});
