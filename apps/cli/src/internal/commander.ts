import { createRequire } from "node:module";

/**
 * commander's classes, required from its CommonJS entry. commander is a CommonJS package whose
 * ES entry only re-exports that same module, so this is the very instance `import` would give
 * (CommanderError checks by instanceof still hold); requiring it directly skips the ES loader's
 * scan of the CommonJS source for export names, a measurable share of `awr`'s start-up.
 * Types come from "commander" with `import type`.
 */
const commander = createRequire(import.meta.url)("commander") as typeof import("commander");

export const { Command, CommanderError, InvalidArgumentError, Option } = commander;
export type Command = import("commander").Command;
export type CommanderError = import("commander").CommanderError;
export type InvalidArgumentError = import("commander").InvalidArgumentError;
export type Option = import("commander").Option;
