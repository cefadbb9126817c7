import { createHash } from "node:crypto";

/**
 * Entity ids are derived from the project id and the entity key, so an entity keeps its id
 * across edits, reindexes and rebuilt databases for as long as its key stays the same.
 */
export function entityId(projectId: string, key: string): string {
  return `ent_${createHash("sha256").update(`${projectId}\u0000${key}`).digest("hex").slice(0, 26)}`;
}
