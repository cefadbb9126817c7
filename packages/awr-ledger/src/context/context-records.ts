/** One whole unit of context: it is either rendered completely or omitted completely. */
export interface ContextRecord {
  /** The section it renders under. */
  section: ContextSection;
  /** What it is about: an entity key, evidence key, event id, wait id, checkpoint id. */
  ref: string;
  text: string;
  required: boolean;
  /** Revision at which this record last changed (for checkpoint / after_revision deltas). */
  changed_revision: number;
}

/** Section order in the rendered text; optional sections are also filled in this priority. */
export const CONTEXT_SECTIONS = [
  "work",
  "acceptance",
  "hard_rules",
  "unmet_dependencies",
  "pending_waits",
  "goal",
  "milestone",
  "decisions",
  "soft_rules",
  "checkpoint",
  "evidence",
  "recent_events",
  "related_work",
] as const;
export type ContextSection = (typeof CONTEXT_SECTIONS)[number];

export const SECTION_TITLES: Record<ContextSection, string> = {
  work: "Work item",
  acceptance: "Acceptance criteria",
  hard_rules: "Hard rules in scope",
  unmet_dependencies: "Unmet required dependencies",
  pending_waits: "Pending waits",
  goal: "Goals",
  milestone: "Milestone",
  decisions: "Decisions",
  soft_rules: "Other rules in scope",
  checkpoint: "Last checkpoint",
  evidence: "Evidence",
  recent_events: "Recent events",
  related_work: "Related work",
};

/** Renders records under their section headings, in section order then record order. */
export function renderContext(header: string, records: readonly ContextRecord[]): string {
  const parts = [header];
  for (const section of CONTEXT_SECTIONS) {
    const inSection = records.filter((r) => r.section === section);
    if (inSection.length === 0) continue;
    parts.push(`\n## ${SECTION_TITLES[section]}\n${inSection.map((r) => r.text).join("\n")}`);
  }
  return `${parts.join("\n")}\n`;
}
