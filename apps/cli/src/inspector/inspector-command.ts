import { LIMITS } from "@awr/awr-ledger/catalog";
import type { Command } from "commander";
import { usageError } from "../cli-error.js";
import { localOnly } from "../commands/local-only.js";
import type { CommandContext } from "../context.js";

/** The flags as commander parses them. */
interface InspectorFlags {
  port?: string;
  demo?: boolean;
  allowReindex?: boolean;
  open?: boolean;
}

/**
 * `awr inspector` (ours; the original ships it as a separate Node script with these flags): a
 * read-only web board of the project on http://127.0.0.1:PORT, served until Ctrl-C or SIGTERM.
 * It prints one line, the URL (`{"url": ...}` under --json).
 */
export function registerInspectorCommand(program: Command, context: CommandContext): void {
  program
    .command("inspector")
    .description(
      "serve a read-only web board of the project (queues, work, context, sources) on 127.0.0.1 until Ctrl-C",
    )
    .option(
      "--port <n>",
      `the port to listen on (default ${LIMITS.inspector.defaultPort}; 0: any free port)`,
    )
    .option("--demo", "serve a demo project (a fresh copy of the bookshop example) instead")
    .option("--allow-reindex", "let the board reindex changed sources (off by default)")
    .option("--no-open", "do not open a browser (one opens only where a desktop is present)")
    .action(async (options: InspectorFlags) => {
      localOnly(context, "inspector");
      const port = parsePort(options.port);
      const { runInspector } = await import("./run-inspector.js");
      await runInspector(context, { ...options, port });
    });
}

function parsePort(raw: string | undefined): number {
  if (raw === undefined) return LIMITS.inspector.defaultPort;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isInteger(port) || port > 65_535) {
    throw usageError(`--port must be a whole number from 0 to 65535, not "${raw}"`);
  }
  return port;
}
