import type { ToolName } from "@awr/awr-ledger/catalog";
import type { Command } from "commander";
import type { OperationInput, OperationResult } from "../backend/backend.js";
import { CliError, usageError } from "../cli-error.js";
import type { CommandContext } from "../context.js";
import { Option } from "../internal/commander.js";
import { type ChangeView, changeLines, previewFingerprintOf } from "../render/change-view.js";
import { group } from "./catalog-commands.js";
import { checkActorBytes, readCreateRequest, readHostEnvelope } from "./change-envelopes.js";
import { integer } from "./option-parsers.js";

/**
 * The reviewed source changes on the command line, as the original CLI spells them:
 * `work edit`, `host preview|save|status|recover`, `work create|create-status|create-recover`
 * and `batch change|status|recover`. Each runs the awr_change_* tools through the CLI's backend
 * (the project's ledger as client stdio, or a shared service with --url): the CLI's request key
 * is the tool's request_id, and the command fixes the change kind (work_edit, edit, create,
 * batch). `host status|recover` look the key up under edit first, then under work_edit (the
 * kind `work edit` records), so the outcome query `work edit` prints finds its change.
 */

type ChangeKind = "edit" | "work_edit" | "create" | "batch";

/** The reason `work create` gives the tool, which the command line has no flag for. */
const CREATE_REASON = "Create a draft work item (awr work create)";

/** A value as one shell word, quoted when it needs to be. */
function word(value: string): string {
  return /^[\w./:@=+,-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

function revisionOption(description: string): Option {
  return new Option("--expected-revision <n>", description).argParser(integer());
}

/** One tool call through the backend; the journal lookups never refresh sources first. */
async function call(
  context: CommandContext,
  tool: ToolName,
  input: OperationInput,
  refresh = true,
): Promise<OperationResult> {
  const backend = await context.backend();
  return backend.call(tool, input, {
    ...(context.signal ? { signal: context.signal } : {}),
    ...(refresh ? {} : { refresh: false }),
  });
}

interface ChangeRequest {
  kind: ChangeKind;
  request_id: string;
  reason: string;
  change: Record<string, unknown>;
}

function preview(context: CommandContext, request: ChangeRequest): Promise<OperationResult> {
  return call(context, "awr_change_preview", {
    request_id: request.request_id,
    reason: request.reason,
    change: { kind: request.kind, ...request.change },
  });
}

function apply(
  context: CommandContext,
  request: ChangeRequest,
  expected_revision: number,
  expected_preview: string,
): Promise<OperationResult> {
  return call(context, "awr_change_apply", {
    request_id: request.request_id,
    reason: request.reason,
    change: { kind: request.kind, ...request.change },
    expected_revision,
    expected_preview,
  });
}

function status(context: CommandContext, kind: ChangeKind, key: string) {
  return call(context, "awr_change_status", { request_id: key, kind }, false);
}

function recover(context: CommandContext, kind: ChangeKind, key: string, revision: number) {
  return call(
    context,
    "awr_change_recover",
    { request_id: key, kind, expected_revision: revision },
    false,
  );
}

/** The change `key` names under the first of `kinds` that has it (the first kind's if none). */
async function lookUp(
  context: CommandContext,
  kinds: readonly ChangeKind[],
  key: string,
): Promise<{ kind: ChangeKind; result: OperationResult }> {
  let first: { kind: ChangeKind; result: OperationResult } | undefined;
  for (const kind of kinds) {
    const result = await status(context, kind, key);
    if (result["found"] === true) return { kind, result };
    first ??= { kind, result };
  }
  return first as { kind: ChangeKind; result: OperationResult };
}

/** --accept needs the reviewed preview and revision: a usage error naming what is missing. */
function acceptFlags(
  command: string,
  given: { expectedPreview?: string; expectedRevision?: number; sourceFingerprint?: string },
  needs: readonly ("--expected-preview" | "--expected-revision" | "--source-fingerprint")[],
): { expectedPreview: string; expectedRevision: number } {
  const value = {
    "--expected-preview": given.expectedPreview,
    "--expected-revision": given.expectedRevision,
    "--source-fingerprint": given.sourceFingerprint,
  };
  const missing = needs.filter((flag) => value[flag] === undefined);
  if (missing.length > 0) {
    throw usageError(
      `\`awr ${command} --accept\` applies the reviewed preview: it needs ${missing.join(", ")} (from the preview, run without --accept).`,
    );
  }
  return {
    expectedPreview: given.expectedPreview as string,
    expectedRevision: given.expectedRevision as number,
  };
}

const HOST_KINDS: readonly ChangeKind[] = ["edit", "work_edit"];

function hostView(key: string, file?: string, kind: ChangeKind = "edit"): ChangeView {
  return {
    label: kind === "work_edit" ? "Work edit" : "Host save",
    key,
    query: `awr host status --key ${word(key)}`,
    recover: `awr host recover --key ${word(key)}`,
    accept: (fingerprint, revision) =>
      `show the change above, then \`awr host save --input ${word(file ?? "FILE")} --expected-revision ${revision} --expected-preview ${fingerprint}\``,
  };
}

function registerWorkEdit(program: Command, context: CommandContext): void {
  const command = group(program, "work")
    .command("edit")
    .description(
      "preview a small edit of a work item (title, summary, priority, next action); --accept applies the reviewed change, keeping every other byte of its source",
    )
    .argument("<work>", "the work item's key")
    .requiredOption("--request-key <key>", "your stable id of this edit; the outcome is read by it")
    .requiredOption(
      "--actor <name>",
      "the agent making the edit, as provenance (it grants no permission)",
    )
    .requiredOption("--reason <text>", "why, in a sentence")
    .option("--title <text>", "the new title")
    .option("--summary <text>", "the new summary")
    .option("--priority <text>", "the new priority")
    .option("--next-action <text>", "the new next action")
    .option(
      "--source-fingerprint <fingerprint>",
      "omit to preview; with --accept, exactly the source fingerprint the preview returned",
    )
    .option("--accept", "apply the reviewed preview (without it: preview, writing nothing)")
    .option("--expected-preview <fingerprint>", "with --accept: the preview's fingerprint")
    .addOption(revisionOption("with --accept: the preview's project revision"));
  command.action(async (work: string) => {
    const given = command.opts<{
      requestKey: string;
      actor: string;
      reason: string;
      title?: string;
      summary?: string;
      priority?: string;
      nextAction?: string;
      sourceFingerprint?: string;
      accept?: boolean;
      expectedPreview?: string;
      expectedRevision?: number;
    }>();
    checkActorBytes("awr-cli", given.actor, "--actor");
    const fields: Record<string, string> = {};
    for (const [name, value] of [
      ["title", given.title],
      ["summary", given.summary],
      ["priority", given.priority],
      ["next_action", given.nextAction],
    ] as const) {
      if (value !== undefined) fields[name] = value;
    }
    const request: ChangeRequest = {
      kind: "work_edit",
      request_id: given.requestKey,
      reason: given.reason,
      change: { work, fields, source_fingerprint: given.sourceFingerprint ?? null },
    };
    let result: OperationResult;
    if (given.accept === true) {
      const flags = acceptFlags("work edit", given, [
        "--source-fingerprint",
        "--expected-preview",
        "--expected-revision",
      ]);
      result = await apply(context, request, flags.expectedRevision, flags.expectedPreview);
    } else {
      result = await preview(context, request);
    }
    const answered = result;
    const key = word(given.requestKey);
    const view: ChangeView = {
      label: "Work edit",
      key: given.requestKey,
      query: `awr host status --key ${key}`,
      recover: `awr host recover --key ${key}`,
      accept: (fingerprint, revision) => {
        const change = answered["change"];
        const reviewed =
          typeof change === "object" && change !== null
            ? (change as Record<string, unknown>)["source_fingerprint"]
            : undefined;
        return `review the change above, then run the same command with --accept --source-fingerprint ${typeof reviewed === "string" ? reviewed : "F"} --expected-preview ${fingerprint} --expected-revision ${revision}`;
      },
    };
    context.print(result, () => changeLines(result, view, context.colors));
  });
}

function registerHost(program: Command, context: CommandContext): void {
  const host = program
    .command("host")
    .description(
      "save a host's explicit edit of a work item (version-1 envelope: request key, actor, reason, change)",
    );

  host
    .command("preview")
    .description("preview the envelope's change without writing: the plan to show, its fingerprint")
    .requiredOption("--input <file>", "the version-1 host save envelope (JSON)")
    .action(async (options: { input: string }) => {
      const envelope = await readHostEnvelope(context, options.input, "The host save envelope");
      const result = await preview(context, {
        kind: "edit",
        request_id: envelope.request_key,
        reason: envelope.reason,
        change: { change: envelope.change },
      });
      context.print(result, () =>
        changeLines(result, hostView(envelope.request_key, options.input), context.colors),
      );
    });

  const save = host
    .command("save")
    .description(
      "save the envelope's change at --expected-revision; an origin other than human needs the --expected-preview of `host preview`",
    )
    .requiredOption("--input <file>", "the version-1 host save envelope (JSON)")
    .addOption(revisionOption("the project revision the editor read").makeOptionMandatory())
    .option(
      "--expected-preview <fingerprint>",
      "the fingerprint `host preview` returned (required unless the actor's origin is human)",
    );
  save.action(async () => {
    const options = save.opts<{
      input: string;
      expectedRevision: number;
      expectedPreview?: string;
    }>();
    const envelope = await readHostEnvelope(context, options.input, "The host save envelope");
    const request: ChangeRequest = {
      kind: "edit",
      request_id: envelope.request_key,
      reason: envelope.reason,
      change: { change: envelope.change },
    };
    let fingerprint = options.expectedPreview;
    if (fingerprint === undefined) {
      if (envelope.actor.origin !== "human") {
        throw new CliError(
          "InvalidInput",
          `An actor of origin ${envelope.actor.origin} saves only a reviewed preview: run \`awr host preview --input ${word(options.input)}\`, show its plan, and pass its fingerprint as --expected-preview. Nothing was written.`,
          { details: { field: "expected_preview", origin: envelope.actor.origin } },
        );
      }
      // A person's own edit, shown by the host itself: its preview is made here, at this revision.
      fingerprint = previewFingerprintOf(await preview(context, request));
      if (fingerprint === undefined) {
        throw new CliError("Internal", "The preview answered without a fingerprint.");
      }
    }
    const result = await apply(context, request, options.expectedRevision, fingerprint);
    context.print(result, () =>
      changeLines(result, hostView(envelope.request_key, options.input), context.colors),
    );
  });

  host
    .command("status")
    .description(
      "read the outcome of a host save (or a `work edit`) by its request key; writes nothing",
    )
    .requiredOption("--key <key>", "the request key")
    .action(async (options: { key: string }) => {
      const { kind, result } = await lookUp(context, HOST_KINDS, options.key);
      context.print(result, () =>
        changeLines(result, hostView(options.key, undefined, kind), context.colors),
      );
    });

  const recoverCommand = host
    .command("recover")
    .description(
      "resume an interrupted host save (or `work edit`) by its request key; never writes twice, keeps outside edits",
    )
    .requiredOption("--key <key>", "the request key")
    .addOption(revisionOption("the current project revision").makeOptionMandatory());
  recoverCommand.action(async () => {
    const options = recoverCommand.opts<{ key: string; expectedRevision: number }>();
    const { kind } = await lookUp(context, HOST_KINDS, options.key);
    const result = await recover(context, kind, options.key, options.expectedRevision);
    context.print(result, () =>
      changeLines(result, hostView(options.key, undefined, kind), context.colors),
    );
  });
}

function createView(key: string): ChangeView {
  return {
    label: "Work creation",
    key,
    query: `awr work create-status --key ${word(key)}`,
    recover: `awr work create-recover --key ${word(key)}`,
    accept: (fingerprint, revision) =>
      `review the draft above, then run the same command with --accept --expected-preview ${fingerprint} --expected-revision ${revision}`,
    done: "the new item stays a draft: give it a goal and acceptance (`awr host save`, operation fields), then activate it (operation activate_draft)",
  };
}

function createLines(result: OperationResult, key: string, context: CommandContext): string[] {
  const lines = changeLines(result, createView(key), context.colors);
  const work = result["external_key"] ?? result["work"];
  if (typeof work === "string") lines.splice(1, 0, `Work key: ${work}`);
  return lines;
}

function registerWorkCreate(program: Command, context: CommandContext): void {
  const work = group(program, "work");
  const create = work
    .command("create")
    .description(
      "preview one new draft work item in its source ledger; --accept writes the reviewed draft",
    )
    .option(
      "--input <file>",
      "a version-1 creation request (JSON: version, request_key, title, optional source_id), instead of --title/--request-key/--source",
    )
    .option("--title <text>", "the new work item's title")
    .option(
      "--request-key <key>",
      "your stable id of this creation, reused only with the same content",
    )
    .option("--source <id>", "the ledger to add it to (default: the one primary work ledger)")
    .option("--accept", "write the reviewed draft (without it: preview, writing nothing)")
    .option("--expected-preview <fingerprint>", "with --accept: the preview's fingerprint")
    .addOption(revisionOption("with --accept: the preview's project revision"));
  create.action(async () => {
    const given = create.opts<{
      input?: string;
      title?: string;
      requestKey?: string;
      source?: string;
      accept?: boolean;
      expectedPreview?: string;
      expectedRevision?: number;
    }>();
    let request: ChangeRequest;
    if (given.input !== undefined) {
      const clash = (
        [
          ["--title", given.title],
          ["--request-key", given.requestKey],
          ["--source", given.source],
        ] as const
      ).filter(([, value]) => value !== undefined);
      if (clash.length > 0) {
        throw usageError(
          `--input holds the whole creation request: drop ${clash.map(([flag]) => flag).join(", ")}, or drop --input.`,
        );
      }
      const file = await readCreateRequest(context, given.input);
      request = {
        kind: "create",
        request_id: file.request_key,
        reason: CREATE_REASON,
        change: {
          title: file.title,
          ...(file.source_id === undefined ? {} : { source_id: file.source_id }),
          ...(file.fields === undefined ? {} : { fields: file.fields }),
        },
      };
    } else {
      const missing = (
        [
          ["--title", given.title],
          ["--request-key", given.requestKey],
        ] as const
      ).filter(([, value]) => value === undefined);
      if (missing.length > 0) {
        throw usageError(
          `\`awr work create\` needs ${missing.map(([flag]) => flag).join(" and ")} (or --input FILE).`,
        );
      }
      request = {
        kind: "create",
        request_id: given.requestKey as string,
        reason: CREATE_REASON,
        change: {
          title: given.title,
          ...(given.source === undefined ? {} : { source_id: given.source }),
        },
      };
    }
    let result: OperationResult;
    if (given.accept === true) {
      if (given.expectedPreview === undefined || given.expectedRevision === undefined) {
        throw new CliError(
          "InvalidInput",
          "Accepting a creation needs the reviewed --expected-preview and --expected-revision of its preview (run it without --accept first). Nothing was written.",
          {
            details: {
              field: given.expectedPreview === undefined ? "expected_preview" : "expected_revision",
            },
          },
        );
      }
      result = await apply(context, request, given.expectedRevision, given.expectedPreview);
    } else {
      result = await preview(context, request);
    }
    context.print(result, () => createLines(result, request.request_id, context));
  });

  work
    .command("create-status")
    .description("read the outcome of a creation by its request key; writes nothing")
    .requiredOption("--key <key>", "the request key")
    .action(async (options: { key: string }) => {
      const result = await status(context, "create", options.key);
      context.print(result, () => createLines(result, options.key, context));
    });

  const createRecover = work
    .command("create-recover")
    .description("resume an interrupted creation by its request key; keeps outside edits")
    .requiredOption("--key <key>", "the request key")
    .addOption(revisionOption("the current project revision").makeOptionMandatory());
  createRecover.action(async () => {
    const options = createRecover.opts<{ key: string; expectedRevision: number }>();
    const result = await recover(context, "create", options.key, options.expectedRevision);
    context.print(result, () => createLines(result, options.key, context));
  });
}

function batchView(key: string): ChangeView {
  return {
    label: "Batch change",
    key,
    query: `awr batch status --key ${word(key)}`,
    recover: `awr batch recover --key ${word(key)}`,
    accept: (fingerprint, revision) =>
      `review the changes above, then run the same command with --accept --expected-preview ${fingerprint} --expected-revision ${revision}`,
  };
}

function registerBatch(program: Command, context: CommandContext): void {
  const batch = program
    .command("batch")
    .description(
      "preview and apply a bounded batch of changes to one source ledger (version-1 envelope)",
    );

  const change = batch
    .command("change")
    .description(
      "preview the envelope's batch without writing; --accept applies the reviewed batch",
    )
    .requiredOption("--input <file>", "the version-1 batch envelope (JSON)")
    .option("--accept", "apply the reviewed batch (without it: preview, writing nothing)")
    .option("--expected-preview <fingerprint>", "with --accept: the preview's fingerprint")
    .addOption(revisionOption("with --accept: the preview's project revision"));
  change.action(async () => {
    const given = change.opts<{
      input: string;
      accept?: boolean;
      expectedPreview?: string;
      expectedRevision?: number;
    }>();
    // The accept flags are checked before the file is read: the line is wrong either way.
    const flags =
      given.accept === true
        ? acceptFlags("batch change", given, ["--expected-preview", "--expected-revision"])
        : undefined;
    const envelope = await readHostEnvelope(context, given.input, "The batch envelope");
    const request: ChangeRequest = {
      kind: "batch",
      request_id: envelope.request_key,
      reason: envelope.reason,
      change: { change: envelope.change },
    };
    const result =
      flags === undefined
        ? await preview(context, request)
        : await apply(context, request, flags.expectedRevision, flags.expectedPreview);
    context.print(result, () =>
      changeLines(result, batchView(envelope.request_key), context.colors),
    );
  });

  batch
    .command("status")
    .description("read the outcome of a batch by its request key; writes nothing")
    .requiredOption("--key <key>", "the request key")
    .action(async (options: { key: string }) => {
      const result = await status(context, "batch", options.key);
      context.print(result, () => changeLines(result, batchView(options.key), context.colors));
    });

  const batchRecover = batch
    .command("recover")
    .description("resume an interrupted batch by its request key; never writes twice")
    .requiredOption("--key <key>", "the request key")
    .addOption(revisionOption("the current project revision").makeOptionMandatory());
  batchRecover.action(async () => {
    const options = batchRecover.opts<{ key: string; expectedRevision: number }>();
    const result = await recover(context, "batch", options.key, options.expectedRevision);
    context.print(result, () => changeLines(result, batchView(options.key), context.colors));
  });
}

/** `awr work edit|create|create-status|create-recover`, `awr host …` and `awr batch …`. */
export function registerChangeCommands(program: Command, context: CommandContext): void {
  registerWorkEdit(program, context);
  registerWorkCreate(program, context);
  registerHost(program, context);
  registerBatch(program, context);
}
