import type { Kysely } from "kysely";

export type Backend = "sqlite" | "postgres";

/**
 * One versioned schema step. `up` runs inside a transaction that the runner opens (and that
 * holds the migration lock), so a step either applies completely or not at all. Versions are
 * consecutive integers starting at 1; a step is never edited once released.
 */
export interface Migration {
  version: number;
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: migrations run before the schema type is true.
  up(db: Kysely<any>, backend: Backend): Promise<void>;
}
