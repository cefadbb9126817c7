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

  it("map back to the original server and tool", () => {
    const map = new ToolNameMap();
    const name = map.add("my.server", `${"y".repeat(80)}.tool`);
    expect(map.resolve(name)).toEqual({ server: "my.server", tool: `${"y".repeat(80)}.tool` });
    expect(map.resolve("mcp__other__tool")).toBeUndefined();
    map.removeServer("my.server");
    expect(map.resolve(name)).toBeUndefined();
  });
});
