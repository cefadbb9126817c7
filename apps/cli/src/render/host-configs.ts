import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

/**
 * The absolute path of `program` on `PATH` (an executable regular file), or undefined. Agent hosts
 * start MCP servers with a PATH of their own, often without the directory a global npm install
 * uses, so a configuration that names the absolute path starts wherever the host runs it.
 */
export function findOnPath(program: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? "").split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, program);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here: look in the next directory
    }
  }
  return undefined;
}

/**
 * Ready-to-paste stdio configurations for Claude Code, Cursor and Codex that start
 * `awr-mcp --project <root>` (root absolute). `command` is awr-mcp's absolute path when it is
 * on PATH; otherwise plain `awr-mcp`, and the first line says how to install it.
 */
export function hostConfigLines(root: string, command: string | undefined): string[] {
  const program = command ?? "awr-mcp";
  const args = JSON.stringify(["--project", root]);
  const server = (extra: string) =>
    `{ "mcpServers": { "awr": { ${extra}"command": ${JSON.stringify(program)}, "args": ${args} } } }`;
  return [
    ...(command === undefined
      ? [
          "awr-mcp is not on PATH: install @awr/service (see the install guide) or put its absolute path in place of awr-mcp below.",
        ]
      : []),
    "Connect an agent host to this project over stdio:",
    "  Claude Code, .mcp.json in the project:",
    `    ${server('"type": "stdio", ')}`,
    "  Cursor, .cursor/mcp.json in the project:",
    `    ${server("")}`,
    "  Codex, ~/.codex/config.toml:",
    "    [mcp_servers.awr]",
    `    command = ${JSON.stringify(program)}`,
    `    args = ${args}`,
  ];
}
