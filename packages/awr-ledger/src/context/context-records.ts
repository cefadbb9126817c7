/**
 * Context chunks: whole units of a packet, each rendered completely or left out completely.
 * Required chunks are never left out; optional ones are chosen by priority while they fit.
 */

/**
 * Sections in rendering order: `plan` and `related` hold the plan sections and neighbouring
 * work that bear on the item (docs/compatibility/context.md).
 */
export const CONTEXT_SECTIONS = [
  "goal",
  "plan",
  "work",
  "acceptance",
  "rules",
  "dependencies",
  "decisions",
  "delta",
  "executions",
  "evidence",
  "related",
  "metadata",
] as const;
export type ContextSection = (typeof CONTEXT_SECTIONS)[number];

export const SECTION_TITLES: Record<ContextSection, string> = {
  goal: "Goal",
  plan: "Plan",
  work: "Current Work",
  acceptance: "Acceptance",
  rules: "Rules",
  dependencies: "Dependencies",
  decisions: "Decisions",
  delta: "Recent Delta",
  executions: "Executions",
  evidence: "Evidence",
  related: "Related Work",
  metadata: "Metadata",
};

/** An entity a chunk states facts of, at the revision those facts were read. */
export interface SelectedEntity {
  kind: string;
  id: string;
  revision: number;
}

export interface ContextChunk {
  /** Unique within its section; the chunk's heading in the rendered text. */
  key: string;
  section: ContextSection;
  text: string;
  entities: SelectedEntity[];
  required: boolean;
  /** Optional chunks: lower is chosen first. */
  priority: number;
  /** Revision at which the chunk's facts last changed (newer first among equal priority). */
  recency: number;
}

export function chunk(
  key: string,
  section: ContextSection,
  text: string,
  entities: SelectedEntity[],
  options: { required: true } | { priority: number; recency: number },
): ContextChunk {
  return "required" in options
    ? { key, section, text, entities, required: true, priority: 0, recency: 0 }
    : { key, section, text, entities, required: false, ...options };
}

const sectionRank = (s: ContextSection) => CONTEXT_SECTIONS.indexOf(s);
const byPlace = (a: ContextChunk, b: ContextChunk) =>
  sectionRank(a.section) - sectionRank(b.section) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** Optional candidates in the order they are tried: priority, then newer, then place. */
export const byPreference = (a: ContextChunk, b: ContextChunk) =>
  a.priority - b.priority || b.recency - a.recency || byPlace(a, b);

/**
 * The rendered text is a sequence of segments: the header, section headings (`## Title`),
 * chunks (`[key]` then the text) and the footer. Each segment ends with a newline and starts
 * with a character that is neither whitespace nor `/`, which is where o200k_base's
 * pre-tokenizer always splits (a piece never runs from a newline into such a character), so the
 * tokens of the whole text are exactly the sum of the segments' tokens. Budgeting counts
 * segments once each instead of recounting the whole text.
 */
export const chunkText = (c: ContextChunk) => `[${c.key}]\n${c.text}\n`;
export const headingText = (section: ContextSection) => `## ${SECTION_TITLES[section]}\n`;
export const headerText = (lines: readonly string[]) => `${lines.join("\n")}\n`;
export const footerText = (omitted: number) =>
  `Optional chunks left out for the budget: ${omitted}. Explicit reads (awr work show, awr search) give the rest.\n`;

/**
 * The segments of a packet: the header, then the chunks in fixed section/key order
 * (independent of selection order, so the same facts always give the same text) under their
 * section headings, then the footer counting what the budget left out.
 */
export function renderSegments(
  header: string,
  chunks: readonly ContextChunk[],
  omitted: number,
): string[] {
  const segments = [header];
  let section: ContextSection | undefined;
  for (const c of [...chunks].sort(byPlace)) {
    if (c.section !== section) {
      segments.push(headingText(c.section));
      section = c.section;
    }
    segments.push(chunkText(c));
  }
  segments.push(footerText(omitted));
  return segments;
}

/** Chunks sorted as they are rendered. */
export const inRenderOrder = (chunks: readonly ContextChunk[]) => [...chunks].sort(byPlace);
