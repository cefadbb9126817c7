import { randomBytes } from "node:crypto";
import type { Command } from "commander";
import type { CommandContext } from "../context.js";

/** Bytes of randomness in a new token: 32 bytes are 43 base64url characters. */
export const TOKEN_BYTES = 32;

export function newToken(): string {
  return randomBytes(TOKEN_BYTES).toString("base64url");
}

/** `awr registry check FILE` and `awr token new`: operator tools for the shared service. */
export function registerRegistryCommands(program: Command, context: CommandContext): void {
  const registry = program
    .command("registry")
    .description("the shared service's registry (projects, clients, grants)");
  registry
    .command("check")
    .description(
      "validate a registry file and verify every project identity and token variable, without starting anything",
    )
    .argument("<file>", "the registry TOML, e.g. /etc/awr/service.toml")
    .addHelpText(
      "after",
      "\nTokens are read from the environment variables the clients name (token_env), as awr-mcp would.\nExit 0 when the service would start with this file, 1 with every problem listed otherwise.",
    )
    .action(async (file: string) => {
      const { runRegistryCheck } = await import("./registry-check.js");
      await runRegistryCheck(context, file);
    });

  const token = program.command("token").description("bearer tokens for the shared service");
  token
    .command("new")
    .description(
      `print a new random bearer token (${TOKEN_BYTES} random bytes, base64url, 43 characters)`,
    )
    .addHelpText(
      "after",
      '\nPut it in the environment variable a registry client names in token_env, e.g.\n  export AWR_ENGINEERING_TOKEN="$(awr token new)"',
    )
    .action(() => {
      const value = newToken();
      context.print({ token: value }, () => [value]);
    });
}
