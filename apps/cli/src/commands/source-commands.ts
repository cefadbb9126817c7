import type { Command } from "commander";
import type { LocalBackend } from "../backend/local-backend.js";
import type { CommandContext } from "../context.js";
import { formatTable } from "../output/table.js";
import { group } from "./catalog-commands.js";
import { localOnly } from "./local-only.js";

async function localBackend(context: CommandContext, command: string): Promise<LocalBackend> {
  localOnly(context, command);
  const backend = await context.backend();
  if (backend.kind !== "local") throw new Error("expected the local ledger");
  return backend as LocalBackend;
}

/** `awr source list|scan` (reindex is the catalog's): the planning sources behind the projection. */
export function registerSourceCommands(program: Command, context: CommandContext): void {
  const source = group(program, "source");

  source
    .command("list")
    .description(
      "the sources of the manifest with their indexed fingerprint, entity count and revision",
    )
    .action(async () => {
      const backend = await localBackend(context, "source list");
      const sources = await backend.sources();
      const result = { project_revision: await backend.revision(), sources };
      const c = context.colors;
      context.print(result, () =>
        formatTable(
          sources,
          [
            { header: "domain", value: (s) => s.domain },
            { header: "role", value: (s) => s.role },
            { header: "path", value: (s) => s.path },
            { header: "adapter", value: (s) => s.adapter },
            { header: "entities", value: (s) => String(s.entity_count) },
            {
              header: "indexed at",
              value: (s) => (s.fingerprint ? `revision ${s.indexed_revision}` : "never"),
            },
            { header: "sha256", value: (s) => s.fingerprint.slice(0, 12) || "-" },
          ],
          c.dim,
        ),
      );
    });

  source
    .command("scan")
    .description("which sources changed since the last index (reads the files, writes nothing)")
    .action(async () => {
      const backend = await localBackend(context, "source scan");
      const changed = await backend.changedPaths();
      const result = {
        project_revision: await backend.revision(),
        fresh: changed.length === 0,
        changed_paths: changed,
      };
      const c = context.colors;
      context.print(result, () =>
        changed.length === 0
          ? [`${c.green("✓")} every source is indexed as it is on disk`]
          : [
              `${c.yellow(`${changed.length} source(s) changed`)} since the last index:`,
              ...changed.map((path) => `  ${path}`),
              "Run `awr source reindex` to index them (awr's own reads do that automatically).",
            ],
      );
    });
}
