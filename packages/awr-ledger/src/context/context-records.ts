/**
 * Context chunks: whole units of a packet, each rendered completely or left out completely.
 * Required chunks are never left out; optional ones are chosen by priority while they fit.
 */

/**
 * Sections in rendering order. The first ten are the original AWR's; `plan` and `related`
 * (plan sections and neighbouring work that bear on the item) are this implementation's.
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

/** The chunk body as rendered under its section heading. */
export const chunkText = (c: ContextChunk) => `[${c.key}]\n${c.text}\n`;

/**
 * Renders a header, the chunks in fixed section/key order (independent of selection order, so
 * the same facts always give the same text), and a footer counting what the budget left out.
 */
export function renderChunks(
  header: string,
  chunks: readonly ContextChunk[],
  omitted: number,
): string {
  let text = `${header}\n`;
  let section: ContextSection | undefined;
  for (const c of [...chunks].sort(byPlace)) {
    if (c.section !== section) {
      text += `\n## ${SECTION_TITLES[c.section]}\n`;
      section = c.section;
    }
    text += chunkText(c);
  }
  return `${text}\nOptional chunks left out for the budget: ${omitted}. Explicit reads (awr work show, awr search) give the rest.\n`;
}

/** Chunks sorted as they are rendered. */
export const inRenderOrder = (chunks: readonly ContextChunk[]) => [...chunks].sort(byPlace);
