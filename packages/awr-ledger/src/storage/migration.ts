import type { PerBackend } from "./dialect.js";

export type { Backend } from "./dialect.js";

/**
 * One versioned schema step: its SQL statements for each database, in order (the runner runs the
 * list its dialect chooses). They run inside a transaction that the runner opens (and that holds
 * the migration lock), so a step either applies completely or not at all. Versions are
 * consecutive integers starting at 1; a step is never edited once released.
 */
export interface Migration {
  version: number;
  name: string;
  statements: PerBackend<readonly string[]>;
}
