// Where a test finds the `awr` and `awr-mcp` programs that the vitest global setup bundled from
// their sources for this run (build-programs.ts): one directory, named to the test processes by
// an environment variable. Plain JavaScript with its own declarations, so that packages whose
// type check stops at their own directory (rootDir) can import it too.
import { join } from "node:path";

/** The environment variable that names the bundles' directory. */
export const PROGRAMS_DIR_VARIABLE = "AWR_TEST_PROGRAMS_DIR";

/**
 * The bundle of program `name` for this run (an absolute path, to run with `node`).
 * @param {"awr" | "awr-mcp"} name
 * @returns {string}
 */
export function testProgram(name) {
  const dir = process.env[PROGRAMS_DIR_VARIABLE];
  if (!dir) {
    throw new Error(
      `${PROGRAMS_DIR_VARIABLE} is not set: run the tests with the repository's vitest config (pnpm test), whose global setup bundles ${name}`,
    );
  }
  return join(dir, `${name}.js`);
}
