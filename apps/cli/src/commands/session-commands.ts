import type { Command } from "commander";
import type { OperationName } from "../backend/operations.js";
import { usageError } from "../cli-error.js";
import type { CommandContext, WriteFlags } from "../context.js";
import { Option } from "../internal/commander.js";
import { sessionLines, sessionListLines } from "../render/views.js";
import { limitOption, sessionAddress, withWriteOptions, writeAndPrint } from "./command-helpers.js";
import { collect, defined, integer } from "./option-parsers.js";

interface AddressOptions extends WriteFlags {
  conversation?: string;
}

const SESSION_ARGUMENT = "[session]";
const SESSION_ARGUMENT_HELP = "session id (or name it with --conversation)";

/** A session subcommand addressed by `[session]` or `--conversation`. */
function addressed(group: Command, name: string, description: string): Command {
  return group
    .command(name)
    .description(description)
    .argument(SESSION_ARGUMENT, SESSION_ARGUMENT_HELP)
    .option(
      "--conversation <text>",
      "the session bound to this conversation (instead of a session id)",
    );
}

/** One write on an addressed session: its own options, how they become input, its headline. */
interface AddressedWrite<O extends AddressOptions> {
  name: string;
  description: string;
  /** Adds the command's own options (the write options follow them). */
  options: (command: Command) => Command;
  operation: OperationName;
  /** The operation's input besides the session address; undefined values are dropped. */
  input: (options: O) => Record<string, unknown>;
  headline: string | ((options: O) => string);
  /** Rejects option combinations commander cannot express (a usage error). */
  check?: (options: O) => void;
}

function addressedWrite<O extends AddressOptions>(
  group: Command,
  context: CommandContext,
  spec: AddressedWrite<O>,
): void {
  withWriteOptions(spec.options(addressed(group, spec.name, spec.description))).action(
    async (id: string | undefined, options: O) => {
      spec.check?.(options);
      const input = defined({ ...sessionAddress(options, id), ...spec.input(options) });
      const headline = typeof spec.headline === "string" ? spec.headline : spec.headline(options);
      await writeAndPrint(context, spec.operation, input, options, headline);
    },
  );
}

/** `awr session start|list|show|checkpoint|claim|release|end|resume|wait|reply`. */
export function registerSessionCommands(program: Command, context: CommandContext): void {
  const session = program
    .command("session")
    .description(
      "sessions bind a host conversation to one unit of work: claims, checkpoints, waits",
    );

  withWriteOptions(
    session
      .command("start")
      .description(
        "start a session on a work item for a conversation (the same binding again is reused)",
      )
      .argument("<work>", "work item id")
      .requiredOption("--conversation <text>", "the host's stable conversation id")
      .requiredOption("--agent <name>", "the agent's name")
      .requiredOption("--provider <name>", "the model provider")
      .requiredOption("--model <name>", "the model")
      .option("--claim", "also claim the work item")
      .option("--ttl-ms <ms>", "claim lifetime in milliseconds", integer(1)),
  ).action(
    async (
      work: string,
      options: AddressOptions & {
        agent: string;
        provider: string;
        model: string;
        claim?: boolean;
        ttlMs?: number;
      },
    ) => {
      const input = defined({
        work,
        conversation: options.conversation,
        agent: options.agent,
        provider: options.provider,
        model: options.model,
        claim: options.claim,
        ttl_ms: options.ttlMs,
      });
      await writeAndPrint(context, "sessionStart", input, options, `session started on ${work}`);
    },
  );

  session
    .command("list")
    .description("this client's sessions, newest first")
    .addOption(limitOption())
    .option("--before-revision <n>", "page: sessions started before this revision", integer(0))
    .addOption(
      new Option("--status <status>", "only sessions in this status").choices([
        "active",
        "ended",
        "interrupted",
        "incomplete",
      ]),
    )
    .action(async (options: { limit?: number; beforeRevision?: number; status?: string }) => {
      const input = defined({
        limit: options.limit,
        before_revision: options.beforeRevision,
        status: options.status,
      });
      const result = await context.read("sessionList", input);
      context.print(result, () => sessionListLines(result, context.colors));
    });

  addressed(
    session,
    "show",
    "one session: work, status, claim, last checkpoint, pending wait",
  ).action(async (id: string | undefined, options: AddressOptions) => {
    const result = await context.read("sessionGet", sessionAddress(options, id));
    context.print(result, () => sessionLines(result, context.colors));
  });

  addressedWrite<
    AddressOptions & {
      digest: string;
      nextAction?: string;
      openLoop?: string[];
      changedEntity?: string[];
      contextHash?: string;
    }
  >(session, context, {
    name: "checkpoint",
    description: "record where the session stands: digest, next action, open loops",
    options: (command) =>
      command
        .requiredOption("--digest <text>", "a short digest of the state")
        .option("--next-action <text>", "what to do next")
        .option("--open-loop <text>", "an unfinished thread (repeatable)", collect)
        .option(
          "--changed-entity <id>",
          "an entity changed since the last checkpoint (repeatable)",
          collect,
        )
        .option("--context-hash <hash>", "the context_hash of the packet the session worked from"),
    operation: "sessionCheckpoint",
    input: (options) => ({
      digest: options.digest,
      next_action: options.nextAction,
      open_loops: options.openLoop,
      changed_entities: options.changedEntity,
      context_hash: options.contextHash,
    }),
    headline: "checkpoint recorded",
  });

  addressedWrite<AddressOptions & { work?: string; ttlMs?: number }>(session, context, {
    name: "claim",
    description: "claim a work item for the session (at most one active claim per item)",
    options: (command) =>
      command
        .option("--work <id>", "the work item (default: the session's work)")
        .option("--ttl-ms <ms>", "claim lifetime in milliseconds", integer(1)),
    operation: "sessionClaim",
    input: (options) => ({ action: "acquire", work: options.work, ttl_ms: options.ttlMs }),
    headline: "claim acquired",
  });

  addressedWrite<AddressOptions & { work?: string }>(session, context, {
    name: "release",
    description: "release the session's claim",
    options: (command) =>
      command.option("--work <id>", "the work item (default: the session's work)"),
    operation: "sessionClaim",
    input: (options) => ({ action: "release", work: options.work }),
    headline: "claim released",
  });

  addressedWrite<AddressOptions & { status: string; summary?: string }>(session, context, {
    name: "end",
    description: "end the session and release its claims",
    options: (command) =>
      command
        .addOption(
          new Option("--status <status>", "how it ended")
            .choices(["ended", "interrupted", "incomplete"])
            .default("ended"),
        )
        .option("--summary <text>", "what happened"),
    operation: "sessionEnd",
    input: (options) => ({ status: options.status, summary: options.summary }),
    headline: (options) => `session ${options.status}`,
  });

  addressedWrite<
    AddressOptions & {
      newConversation?: string;
      agent?: string;
      provider?: string;
      model?: string;
    }
  >(session, context, {
    name: "resume",
    description: "continue a session in a successor that inherits its checkpoint and claim",
    options: (command) =>
      command
        .option("--new-conversation <text>", "the successor's conversation id")
        .option("--agent <name>", "the successor's agent")
        .option("--provider <name>", "the successor's provider")
        .option("--model <name>", "the successor's model"),
    operation: "sessionResume",
    input: (options) => ({
      new_conversation: options.newConversation,
      agent: options.agent,
      provider: options.provider,
      model: options.model,
    }),
    headline: "session resumed",
  });

  addressedWrite<
    AddressOptions & { question: string; digest: string; nextAction?: string; openLoop?: string[] }
  >(session, context, {
    name: "wait",
    description:
      "checkpoint and ask the user a question; blocks transitions and resume until replied",
    options: (command) =>
      command
        .requiredOption("--question <text>", "the question for the user")
        .requiredOption("--digest <text>", "a short digest of the state")
        .option("--next-action <text>", "what to do after the answer")
        .option("--open-loop <text>", "an unfinished thread (repeatable)", collect),
    operation: "sessionWait",
    input: (options) => ({
      question: options.question,
      digest: options.digest,
      next_action: options.nextAction,
      open_loops: options.openLoop,
    }),
    headline: "waiting for the user",
  });

  addressedWrite<AddressOptions & { wait?: string; answer?: string; cancel?: boolean }>(
    session,
    context,
    {
      name: "reply",
      description: "answer (or cancel) the session's pending question; changes nothing else",
      options: (command) =>
        command
          .option("--wait <id>", "the wait to answer (default: the pending one)")
          .option("--answer <text>", "the answer")
          .option("--cancel", "cancel the question instead of answering"),
      operation: "sessionReply",
      check: (options) => {
        if ((options.answer === undefined) === (options.cancel !== true)) {
          throw usageError("Give exactly one of --answer TEXT or --cancel.");
        }
      },
      input: (options) => ({
        wait: options.wait,
        answer: options.answer,
        cancel: options.cancel,
      }),
      headline: (options) => (options.cancel ? "question cancelled" : "question answered"),
    },
  );
}
