/**
 * Copies the `awr` and `awr-mcp` programs' runtime into a fresh directory readable by every user
 * and bundles the programs there (readable-programs.mjs).
 */
export function readablePrograms(root?: string): Promise<{ dir: string; programs: string }>;
