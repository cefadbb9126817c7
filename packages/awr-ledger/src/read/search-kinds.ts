/** The `kind` filter values of search (`work` is `work_item`). */
export const SEARCH_KINDS = [
  "goal",
  "plan",
  "rule",
  "work_item",
  "work",
  "decision",
  "evidence",
  "event",
] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];
