/** The environment variable that names the bundles' directory. */
export const PROGRAMS_DIR_VARIABLE: "AWR_TEST_PROGRAMS_DIR";
/** The bundle of program `name` for this run (an absolute path, to run with `node`). */
export function testProgram(name: "awr" | "awr-mcp"): string;
