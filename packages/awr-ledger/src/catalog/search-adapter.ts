import type { Kysely } from "kysely";
import { LedgerError } from "../errors.js";
import { search } from "../read/search.js";
import type { Backend } from "../storage/migration.js";
import type { LedgerSchema } from "../storage/schema.js";
import type { SearchToolInput } from "./read-operations.js";

/**
 * awr_search's arguments over the ledger's full-text search (docs/design/operation-catalog.md):
 * `text` is the query and `kind` filters the hits (`work_item` is `work`); the answer names
 * them `hits`, each with its `external_key`. A search without
 * text, or filtered by status or work item, needs the structured search and is refused with
 * Unsupported naming it, never answered as if the filter had been applied.
 */
export async function searchWithFilters(
  db: Kysely<LedgerSchema>,
  backend: Backend,
  input: SearchToolInput,
  revision: number,
) {
  const refused = [
    input.text === undefined ? "a search without text" : null,
    input.status === undefined ? null : "the status filter",
    input.work === undefined ? null : "the work filter",
  ].filter((what) => what !== null);
  if (refused.length > 0) {
    throw new LedgerError(
      "Unsupported",
      `${refused.join(" and ")} needs the structured search, which this build does not have yet; search with text (and kind)`,
      { unsupported: refused },
    );
  }
  const limit = input.limit ?? 10;
  const kind = input.kind === "work_item" ? "work" : input.kind;
  const found = await search(
    db,
    backend,
    { query: input.text as string, limit: kind === undefined ? limit : 100 },
    revision,
  );
  const { results, ...rest } = found;
  const hits = kind === undefined ? results : results.filter((hit) => hit.kind === kind);
  // The original's names: `hits`, each naming its object by `external_key`.
  return {
    ...rest,
    hits: hits.slice(0, limit).map(({ ref, ...hit }) => ({ ...hit, external_key: ref })),
  };
}
