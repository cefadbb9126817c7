import { type Command, Option } from "commander";
import { usageError } from "../cli-error.js";
import type { CommandContext } from "../context.js";
import { sessionLines, sessionListLines, transitionLines } from "../render/views.js";
import { limitOption, sessionAddress, withWriteOptions, writeFlags } from "./command-helpers.js";
import { collect, defined, integer } from "./option-parsers.js";

interface AddressOptions {
  conversation?: string;
  expectedRevision?: number;
  requestId?: string;
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

/** `awr session start|list|show|checkpoint|claim|release|end|resume|wait|reply`. */
export function registerSessionCommands(program: Command, context: CommandContext): void {
  const session = program
    .command("session")
    .description(
      "sessions bind a host conversation to one unit of work: claims, checkpoints, waits",
    );

  const write = async (
    operation: Parameters<CommandContext["write"]>[0],
    input: Record<string, unknown>,
    options: AddressOptions,
    headline: string,
  ) => {
    const result = await context.write(operation, input, writeFlags(options));
    context.print(result, () => transitionLines(result, context.colors, headline));
  };

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
      await write("sessionStart", input, options, `session started on ${work}`);
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

  withWriteOptions(
    addressed(
      session,
      "checkpoint",
      "record where the session stands: digest, next action, open loops",
    )
      .requiredOption("--digest <text>", "a short digest of the state")
      .option("--next-action <text>", "what to do next")
      .option("--open-loop <text>", "an unfinished thread (repeatable)", collect)
      .option(
        "--changed-entity <id>",
        "an entity changed since the last checkpoint (repeatable)",
        collect,
      )
      .option("--context-hash <hash>", "the context_hash of the packet the session worked from"),
  ).action(
    async (
      id: string | undefined,
      options: AddressOptions & {
        digest: string;
        nextAction?: string;
        openLoop?: string[];
        changedEntity?: string[];
        contextHash?: string;
      },
    ) => {
      const input = defined({
        ...sessionAddress(options, id),
        digest: options.digest,
        next_action: options.nextAction,
        open_loops: options.openLoop,
        changed_entities: options.changedEntity,
        context_hash: options.contextHash,
      });
      await write("sessionCheckpoint", input, options, "checkpoint recorded");
    },
  );

  withWriteOptions(
    addressed(
      session,
      "claim",
      "claim a work item for the session (at most one active claim per item)",
    )
      .option("--work <id>", "the work item (default: the session's work)")
      .option("--ttl-ms <ms>", "claim lifetime in milliseconds", integer(1)),
  ).action(
    async (id: string | undefined, options: AddressOptions & { work?: string; ttlMs?: number }) => {
      const input = defined({
        ...sessionAddress(options, id),
        action: "acquire",
        work: options.work,
        ttl_ms: options.ttlMs,
      });
      await write("sessionClaim", input, options, "claim acquired");
    },
  );

  withWriteOptions(
    addressed(session, "release", "release the session's claim").option(
      "--work <id>",
      "the work item (default: the session's work)",
    ),
  ).action(async (id: string | undefined, options: AddressOptions & { work?: string }) => {
    const input = defined({
      ...sessionAddress(options, id),
      action: "release",
      work: options.work,
    });
    await write("sessionClaim", input, options, "claim released");
  });

  withWriteOptions(
    addressed(session, "end", "end the session and release its claims")
      .addOption(
        new Option("--status <status>", "how it ended")
          .choices(["ended", "interrupted", "incomplete"])
          .default("ended"),
      )
      .option("--summary <text>", "what happened"),
  ).action(
    async (
      id: string | undefined,
      options: AddressOptions & { status: string; summary?: string },
    ) => {
      const input = defined({
        ...sessionAddress(options, id),
        status: options.status,
        summary: options.summary,
      });
      await write("sessionEnd", input, options, `session ${options.status}`);
    },
  );

  withWriteOptions(
    addressed(
      session,
      "resume",
      "continue a session in a successor that inherits its checkpoint and claim",
    )
      .option("--new-conversation <text>", "the successor's conversation id")
      .option("--agent <name>", "the successor's agent")
      .option("--provider <name>", "the successor's provider")
      .option("--model <name>", "the successor's model"),
  ).action(
    async (
      id: string | undefined,
      options: AddressOptions & {
        newConversation?: string;
        agent?: string;
        provider?: string;
        model?: string;
      },
    ) => {
      const input = defined({
        ...sessionAddress(options, id),
        new_conversation: options.newConversation,
        agent: options.agent,
        provider: options.provider,
        model: options.model,
      });
      await write("sessionResume", input, options, "session resumed");
    },
  );

  withWriteOptions(
    addressed(
      session,
      "wait",
      "checkpoint and ask the user a question; blocks transitions and resume until replied",
    )
      .requiredOption("--question <text>", "the question for the user")
      .requiredOption("--digest <text>", "a short digest of the state")
      .option("--next-action <text>", "what to do after the answer")
      .option("--open-loop <text>", "an unfinished thread (repeatable)", collect),
  ).action(
    async (
      id: string | undefined,
      options: AddressOptions & {
        question: string;
        digest: string;
        nextAction?: string;
        openLoop?: string[];
      },
    ) => {
      const input = defined({
        ...sessionAddress(options, id),
        question: options.question,
        digest: options.digest,
        next_action: options.nextAction,
        open_loops: options.openLoop,
      });
      await write("sessionWait", input, options, "waiting for the user");
    },
  );

  withWriteOptions(
    addressed(
      session,
      "reply",
      "answer (or cancel) the session's pending question; changes nothing else",
    )
      .option("--wait <id>", "the wait to answer (default: the pending one)")
      .option("--answer <text>", "the answer")
      .option("--cancel", "cancel the question instead of answering"),
  ).action(
    async (
      id: string | undefined,
      options: AddressOptions & { wait?: string; answer?: string; cancel?: boolean },
    ) => {
      if ((options.answer === undefined) === (options.cancel !== true)) {
        throw usageError("Give exactly one of --answer TEXT or --cancel.");
      }
      const input = defined({
        ...sessionAddress(options, id),
        wait: options.wait,
        answer: options.answer,
        cancel: options.cancel,
      });
      await write(
        "sessionReply",
        input,
        options,
        options.cancel ? "question cancelled" : "question answered",
      );
    },
  );
}
