// Runs the built `awr` CLI on a project with --json and answers its parsed output; a failure
// throws with the command, the exit code and everything the CLI printed. Shared by the CI
// checks that drive real projects (check-real-projects.mjs, check-real-workstreams.mjs).
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const CLI = join(dirname(fileURLToPath(import.meta.url)), "..", "apps/cli/dist/main.js");

export function awr(root, args) {
  try {
    return JSON.parse(
      execFileSync(process.execPath, [CLI, "--project", root, "--json", ...args], {
        encoding: "utf8",
      }),
    );
  } catch (error) {
    throw new Error(
      `awr ${args.join(" ")} failed (exit ${error.status}):\n${error.stdout ?? ""}${error.stderr ?? ""}`,
    );
  }
}
