// Runs the built `awr` CLI on a project with --json and answers its parsed output; a failure
// throws with the command, the exit code and everything the CLI printed. Shared by the CI
// checks that drive real projects (check-real-projects.mjs, check-real-workstreams.mjs).
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const CLI = join(dirname(fileURLToPath(import.meta.url)), "..", "apps/cli/dist/main.js");

/**
 * @param {string} root
 * @param {string[]} args
 * @returns {any} the CLI's --json output
 */
export function awr(root, args) {
  try {
    return JSON.parse(
      execFileSync(process.execPath, [CLI, "--project", root, "--json", ...args], {
        encoding: "utf8",
      }),
    );
  } catch (caught) {
    const error = /** @type {{ status?: number, stdout?: string, stderr?: string }} */ (caught);
    throw new Error(
      `awr ${args.join(" ")} failed (exit ${error.status}):\n${error.stdout ?? ""}${error.stderr ?? ""}`,
    );
  }
}
