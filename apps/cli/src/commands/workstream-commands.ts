import type { Ledger } from "@awr/awr-ledger";
import type { WorkstreamListing } from "@awr/awr-ledger/workstreams";
import type { Command } from "commander";
import type { LocalBackend } from "../backend/local-backend.js";
import type { CommandContext } from "../context.js";
import { formatTable } from "../output/table.js";
import { localOnly } from "./local-only.js";

async function ledgerOf(context: CommandContext, command: string): Promise<Ledger> {
  localOnly(context, `workstream ${command}`);
  const backend = await context.backend();
  if (backend.kind !== "local") throw new Error("expected the local ledger");
  return (backend as LocalBackend).ledger;
}

const signalOf = (context: CommandContext) => (context.signal ? { signal: context.signal } : {});

function listingLines(context: CommandContext, listing: WorkstreamListing): string[] {
  const state = listing.enabled
    ? `${context.colors.green("served")} from ${listing.source_path}`
    : listing.pending
      ? "pending: the manifest names yaml-workstream-ledger-v1; run `awr workstream reindex`"
      : "not enabled (see `awr workstream enable`)";
  const table =
    listing.workstreams.length === 0
      ? []
      : formatTable(
          listing.workstreams,
          [
            { header: "id", value: (w) => w.id },
            { header: "key", value: (w) => w.external_key },
            { header: "title", value: (w) => w.title, shrink: true },
            { header: "state", value: (w) => w.state },
            { header: "authority", value: (w) => String(w.authority_version) },
            { header: "items", value: (w) => String(w.work_items) },
          ],
          { header: context.colors.dim, width: context.colors.width },
        );
  return [`workstreams: ${state}`, ...table];
}

/**
 * `awr workstream enable|reindex|list|migrate`: local operator commands for workstreams in the
 * original's format (one ledger with adapter yaml-workstream-ledger-v1), served read-only over
 * awr_workstream to clients granted them in a version 2 registry. Each is one call into the
 * ledger's workstream API.
 */
export function registerWorkstreamCommands(program: Command, context: CommandContext): void {
  const group = program
    .command("workstream")
    .description(
      "workstreams of the project's ledger, served to granted clients (registry version 2)",
    );

  group
    .command("enable")
    .description(
      "set adapter yaml-workstream-ledger-v1 for the ledger that declares workstreams:, then reindex",
    )
    .addHelpText(
      "after",
      "\nRefused, with nothing changed, unless the ledger declares at least one valid workstream and names the workstream of every work item. Once enabled, the shared service answers the project's other tools with Unsupported.",
    )
    .action(async () => {
      const { enableWorkstreams } = await import("@awr/awr-ledger/workstreams");
      const listing = await enableWorkstreams(await ledgerOf(context, "enable"), signalOf(context));
      context.print(listing, () => listingLines(context, listing));
    });

  group
    .command("reindex")
    .description("the ordinary source reindex, then the workstreams it recorded")
    .action(async () => {
      const ledger = await ledgerOf(context, "reindex");
      const { listWorkstreams } = await import("@awr/awr-ledger/workstreams");
      const { reindexed, project_revision } = await ledger.context.reindex(signalOf(context));
      const listing = await listWorkstreams(ledger, signalOf(context));
      context.print({ reindexed, project_revision, ...listing }, () =>
        listingLines(context, listing),
      );
    });

  group
    .command("list")
    .description("the recorded workstreams, and whether the project serves them")
    .action(async () => {
      const { listWorkstreams } = await import("@awr/awr-ledger/workstreams");
      const listing = await listWorkstreams(await ledgerOf(context, "list"), signalOf(context));
      context.print(listing, () => listingLines(context, listing));
    });

  group
    .command("migrate")
    .description(
      "convert earlier workstreams/*.yaml files into the ledger's workstreams: block, then enable",
    )
    .option(
      "--registry <file>",
      "also replace each earlier workstream id in this registry's grants on the project",
    )
    .addHelpText(
      "after",
      "\nEach earlier workstream keeps its name as external_key and its authority_version; its id becomes a ULID derived from the project and the name (listed under renamed). Objects and events of the earlier files have no place in the original's format: they are listed, and the files are left as they were.",
    )
    .action(async (options: { registry?: string }) => {
      const ledger = await ledgerOf(context, "migrate");
      const { migrateWorkstreams } = await import("@awr/awr-ledger/workstreams");
      const migrated = await migrateWorkstreams(ledger, signalOf(context));
      let grants_renamed: number | undefined;
      if (options.registry !== undefined) {
        const { renameWorkstreamGrants } = await import("@awr/awr-server");
        grants_renamed = await renameWorkstreamGrants(
          options.registry,
          ledger.root,
          migrated.renamed,
        );
      }
      const result = grants_renamed === undefined ? migrated : { ...migrated, grants_renamed };
      context.print(result, () => [
        `converted ${migrated.renamed.length} workstream(s) into ${migrated.ledger}`,
        ...migrated.renamed.map(
          (r) =>
            `  grants: workstream_id "${r.earlier_id}" is now "${r.workstream_id}" (authority_version ${r.authority_version})`,
        ),
        ...(grants_renamed === undefined
          ? []
          : [`  ${grants_renamed} grant(s) renamed in ${options.registry}`]),
        ...migrated.not_converted.map(
          (n) => `  not converted: ${n.objects} object(s), ${n.events} event(s) left in ${n.file}`,
        ),
        ...listingLines(context, migrated),
      ]);
    });
}
