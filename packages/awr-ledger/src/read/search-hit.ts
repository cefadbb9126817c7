import type { SourceRef } from "./entity-view.js";

/** One search result: a source record, an evidence record or an event. */
export interface SearchHit {
  /** The entity id, evidence id or event id. */
  id: string;
  /** goal | plan | rule | work_item | decision | evidence | event (a milestone is a plan). */
  kind: string;
  /** The entity key, the evidence external_key, or the event id. */
  external_key: string;
  title: string;
  /** One bounded line: the record's summary (or its title). */
  summary: string;
  /** Matching text with the terms marked as [term]. */
  snippet: string;
  status: string | null;
  work_item_key: string | null;
  source_ref: SourceRef | null;
  /** `fresh` for a source record (reads refuse stale sources), null for runtime records. */
  source_freshness: "fresh" | null;
  origin: "source" | "runtime";
  revision: number;
  /** Lower is more relevant (0 for a search without text). */
  rank: number;
}
