// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` here is .mcp.json syntax under test, not a template literal.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  expandVariables,
  loadMcpConfig,
  MCPClientErrorCode,
  parseMcpConfig,
} from "@awr/mcp-client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

describe("variable expansion", () => {
  it("expands ${VAR} and ${VAR:-default}, and names variables that are missing", () => {
    const env = { HOME: "/home/me", EMPTY: "" };
    expect(expandVariables("${HOME}/x", env)).toEqual({ value: "/home/me/x", missing: [] });
    expect(expandVariables("${NOPE:-fallback}", env).value).toBe("fallback");
    expect(expandVariables("${EMPTY:-fallback}", env).value).toBe("fallback");
    expect(expandVariables("${HOME:-fallback}", env).value).toBe("/home/me");
    expect(expandVariables("a${NOPE}b", env)).toEqual({ value: "ab", missing: ["NOPE"] });
    expect(expandVariables("$HOME and ${not valid}", env).value).toBe("$HOME and ${not valid}");
  });
});

describe("config files", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "awr-mcp-config-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reads .mcp.json from a directory and expands variables in every documented field", async () => {
    const file = {
      mcpServers: {
        local: {
          command: "${BIN:-node}",
          args: ["${ROOT}/server.js", "--flag"],
          env: { TOKEN: "${TOKEN}" },
          cwd: "${ROOT}",
          timeout: 5000,
          tools: { deny: ["dangerous"] },
        },
        remote: {
          type: "http",
          url: "https://${HOST}/mcp",
          headers: { Authorization: "Bearer ${TOKEN}" },
        },
        legacy: { type: "sse", url: "http://127.0.0.1:1/sse" },
        cursorStyle: { url: "http://127.0.0.1:2/mcp" },
        off: { command: "node", disabled: true },
      },
    };
    await writeFile(join(dir, ".mcp.json"), JSON.stringify(file));
    const config = await loadMcpConfig(dir, {
      env: { ROOT: "/srv", TOKEN: "t0k", HOST: "example.test" },
    });
    expect(config.path).toBe(join(dir, ".mcp.json"));
    expect(config.problems).toEqual([]);
    expect(config.servers).toEqual({
      local: {
        type: "stdio",
        command: "node",
        args: ["/srv/server.js", "--flag"],
        env: { TOKEN: "t0k" },
        cwd: "/srv",
        timeout: 5000,
        tools: { deny: ["dangerous"] },
      },
      remote: {
        type: "http",
        url: "https://example.test/mcp",
        headers: { Authorization: "Bearer t0k" },
      },
      legacy: { type: "sse", url: "http://127.0.0.1:1/sse" },
      cursorStyle: { type: "http", url: "http://127.0.0.1:2/mcp" },
      off: { type: "stdio", command: "node", disabled: true },
    });
  });

  it("falls back to mcp.json, and fails clearly without a file or with bad JSON", async () => {
    await expect(loadMcpConfig(dir)).rejects.toMatchObject({
      code: MCPClientErrorCode.InvalidConfig,
    });
    await writeFile(join(dir, "mcp.json"), "{ not json");
    await expect(loadMcpConfig(dir)).rejects.toThrow(/not valid JSON/);
    await writeFile(join(dir, "mcp.json"), JSON.stringify({ mcpServers: { a: { command: "x" } } }));
    expect(Object.keys((await loadMcpConfig(dir)).servers)).toEqual(["a"]);
  });

  it("parses an in-memory value the same way", () => {
    expect(parseMcpConfig({ mcpServers: {} })).toEqual({ servers: {}, problems: [] });
  });
});
