import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { Option } from "../internal/commander.js";
import {
  type SessionWriteOptions,
  sessionAddress,
  withSessionOptions,
  withWriteOptions,
  writeAndPrint,
} from "./command-helpers.js";
import { collect, defined, jsonObject } from "./option-parsers.js";

const EVIDENCE_LEVELS = [
  "designed",
  "implemented",
  "locally_verified",
  "real_environment_validated",
  "release_candidate",
  "released",
  "unknown",
] as const;

/** `awr event append` and `awr evidence add`. */
export function registerRecordCommands(program: Command, context: CommandContext): void {
  const event = program.command("event").description("the project's append-only event log");
  const append = event
    .command("append")
    .description(
      "append a free-form event (reserved types such as work.* and session.* are refused)",
    )
    .argument("<type>", "event type, e.g. note.decision or review.requested")
    .option("--work <id>", "the work item it concerns")
    .option("--summary <text>", "one line for people (searchable)")
    .option("--payload <json>", "a JSON object with the details (not searchable)", jsonObject);
  withSessionOptions(append, "the session it belongs to");
  withWriteOptions(append).action(
    async (
      type: string,
      options: SessionWriteOptions & {
        work?: string;
        summary?: string;
        payload?: Record<string, unknown>;
      },
    ) => {
      const input = defined({
        type,
        work: options.work,
        ...sessionAddress(options),
        summary: options.summary,
        payload: options.payload,
      });
      await writeAndPrint(context, "eventAppend", input, options, `event ${type} appended`);
    },
  );

  const evidence = program
    .command("evidence")
    .description("evidence that work meets its acceptance criteria");
  const add = evidence
    .command("add")
    .description(
      "record evidence (a test run, a review, a deployment…); the command is recorded, never run",
    )
    .argument("<key>", "a unique external key, e.g. ev-checkout-tests")
    .requiredOption("--type <type>", "evidence type, e.g. test, review, benchmark")
    .addOption(
      new Option("--level <level>", "how far it proves the work")
        .choices([...EVIDENCE_LEVELS])
        .makeOptionMandatory(),
    )
    .requiredOption("--summary <text>", "what it shows")
    .option("--work <id>", "the work item it proves")
    .option("--locator <where>", "where to find it (URL, path, CI run…)")
    .option("--scope <item>", "what it covers (repeatable)", collect)
    .option("--sha256 <hex>", "digest of the artefact")
    .option("--command <text>", "the command that produced it (recorded, never executed)")
    .option("--verified-at <time>", "when it was verified (ISO 8601)");
  withSessionOptions(add, "the recording session");
  withWriteOptions(add).action(
    async (
      key: string,
      options: SessionWriteOptions & {
        type: string;
        level: string;
        summary: string;
        work?: string;
        locator?: string;
        scope?: string[];
        sha256?: string;
        command?: string;
        verifiedAt?: string;
      },
    ) => {
      const input = defined({
        external_key: key,
        evidence_type: options.type,
        level: options.level,
        summary: options.summary,
        work: options.work,
        locator: options.locator,
        scope: options.scope,
        sha256: options.sha256,
        command: options.command,
        verified_at: options.verifiedAt,
        ...sessionAddress(options),
      });
      await writeAndPrint(context, "evidenceRecord", input, options, `evidence ${key} recorded`);
    },
  );
}
