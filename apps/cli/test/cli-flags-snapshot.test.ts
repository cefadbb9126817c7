import { readFileSync } from "node:fs";
import { OPERATION_LIST } from "@awr/awr-ledger";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { commandFlags, requiredFlags } from "../src/commands/command-flags.js";
import { collect } from "../src/commands/option-parsers.js";
import type { CommandContext } from "../src/context.js";
import { buildProgram } from "../src/program.js";

/**
 * The command tree against a checked-in snapshot (fixtures/cli-flags.snapshot.json): the
 * original AWR CLI's commands, operands and flags written by hand, plus the flags this CLI adds
 * under `ours_flags`. Any drift (a flag renamed, dropped or added, a value flag turned switch,
 * an operand moved, a required argument changed) fails here.
 */

type Kind = "value" | "switch" | "list";
interface SnapshotCommand {
  operands: string[];
  flags?: Record<string, Kind>;
  ours_flags?: Record<string, Kind>;
  required?: string[];
  ours?: true;
  unsupported?: true;
}
const SNAPSHOT = JSON.parse(
  readFileSync(new URL("./fixtures/cli-flags.snapshot.json", import.meta.url), "utf8"),
) as { commands: Record<string, SnapshotCommand> };

interface Listed {
  operands: string[];
  flags: Record<string, Kind>;
}

/**
 * Every command of the real tree that runs something: the leaves, and a command with flags of
 * its own above its subcommands (`awr doctor` above `awr doctor repair …`).
 */
function commandTree(): Map<string, Listed> {
  const noOutput = { writeOut() {}, writeErr() {}, outputError() {} };
  const program = buildProgram({} as CommandContext, noOutput);
  const found = new Map<string, Listed>();
  const walk = (command: Command, path: string[]) => {
    const ownFlags = command.options.some((o) => o.long !== undefined && o.long !== "--help");
    if (path.length > 0 && (command.commands.length === 0 || ownFlags)) {
      const flags: Record<string, Kind> = {};
      for (const option of command.options) {
        if (option.long === undefined || option.long === "--help") continue;
        const takesValue = option.required || option.optional;
        flags[option.long] = option.parseArg === collect ? "list" : takesValue ? "value" : "switch";
      }
      const operands = command.registeredArguments.map((a) => a.name().toUpperCase());
      found.set(path.join(" "), { operands, flags });
    }
    for (const sub of command.commands) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  return found;
}

describe("the awr command line snapshot", () => {
  const tree = commandTree();

  it("has exactly the snapshot's commands", () => {
    expect([...tree.keys()].sort()).toEqual(Object.keys(SNAPSHOT.commands).sort());
  });

  it("gives every command the snapshot's operands and flags, the original's among them", () => {
    for (const [path, listed] of tree) {
      const want = SNAPSHOT.commands[path] as SnapshotCommand;
      expect({ path, operands: listed.operands }).toEqual({ path, operands: want.operands });
      if (want.unsupported === true) continue;
      expect({ path, flags: listed.flags }).toEqual({
        path,
        flags: { ...want.flags, ...want.ours_flags },
      });
    }
  });

  it("requires what the snapshot says of every catalog command", () => {
    for (const operation of OPERATION_LIST) {
      for (const spec of operation.cli) {
        const path = spec.path.join(" ");
        const required = requiredFlags(operation, spec, commandFlags(operation, spec));
        expect({ path, required: required.map((g) => g.label) }).toEqual({
          path,
          required: SNAPSHOT.commands[path]?.required,
        });
      }
    }
  });
});
