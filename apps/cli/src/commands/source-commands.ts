import type { Command } from "commander";
import type { SourceRow } from "../backend/local-backend.js";
import type { CommandContext } from "../context.js";
import { formatTable } from "../output/table.js";
import { group } from "./catalog-commands.js";
import { localOnly } from "./local-only.js";

interface Refusal {
  path: string;
  code: string;
  message: string;
}

/**
 * A CLI-only read of the sources, printed as `awr source list|scan` always has: the answer
 * without `ok` (these two commands' JSON never had it).
 */
async function sourceRead(
  context: CommandContext,
  command: string,
  tool: "awr_source_list" | "awr_source_scan",
): Promise<Record<string, unknown>> {
  localOnly(context, command);
  const { ok: _ok, ...result } = await context.read(tool, {});
  return result;
}

/**
 * `awr source list|scan` (reindex is a catalog command): the planning sources behind the
 * projection. They run the CLI-only catalog entries awr_source_list and awr_source_scan, with
 * the CLI's own tables.
 */
export function registerSourceCommands(program: Command, context: CommandContext): void {
  const source = group(program, "source");

  source
    .command("list")
    .description(
      "the sources of the manifest with their indexed fingerprint, entity count and revision",
    )
    .action(async () => {
      const result = await sourceRead(context, "source list", "awr_source_list");
      const sources = result["sources"] as SourceRow[];
      const c = context.colors;
      context.print(result, () =>
        formatTable(
          sources,
          [
            { header: "domain", value: (s) => s.domain },
            { header: "role", value: (s) => s.role },
            { header: "path", value: (s) => s.path, shrink: true },
            { header: "adapter", value: (s) => s.adapter },
            { header: "entities", value: (s) => String(s.entity_count) },
            {
              header: "indexed at",
              value: (s) => (s.fingerprint ? `revision ${s.indexed_revision}` : "never"),
            },
            { header: "sha256", value: (s) => s.fingerprint.slice(0, 12) || "-" },
          ],
          { header: c.dim, width: c.width },
        ),
      );
    });

  source
    .command("scan")
    .description(
      "which sources changed since the last index, and which of them a reindex would refuse (reads files, writes nothing)",
    )
    .action(async () => {
      const result = await sourceRead(context, "source scan", "awr_source_scan");
      const changed = result["changed_paths"] as string[];
      const refused = result["refused"] as Refusal[];
      const c = context.colors;
      const blocked = new Set(refused.map((r) => r.path));
      const indexable = changed.filter((path) => !blocked.has(path));
      context.print(result, () => {
        if (changed.length === 0)
          return [`${c.green("✓")} every source is indexed as it is on disk`];
        const lines: string[] = [];
        if (indexable.length > 0) {
          lines.push(
            `${c.yellow(`${indexable.length} source(s) changed`)} since the last index:`,
            ...indexable.map((path) => `  ${path}`),
            "Run `awr source reindex` to index them (awr's own reads do that automatically).",
          );
        }
        if (refused.length > 0) {
          lines.push(
            `${c.red(`${refused.length} source(s) changed but cannot be indexed`)} (a reindex refuses them; the previous projection of each is kept):`,
            ...refused.map((r) => `  ${r.path}  ${c.dim(`[${r.code}]`)} ${r.message}`),
          );
        }
        return lines;
      });
    });
}
