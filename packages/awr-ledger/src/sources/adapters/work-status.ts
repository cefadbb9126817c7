/** The statuses a work item can have in a source; `unknown` is what an unmapped value reads as. */
export const WORK_STATUSES = [
  "draft",
  "planned",
  "ready",
  "claimed",
  "in_progress",
  "blocked",
  "completed",
  "cancelled",
] as const;
export type WorkStatus = (typeof WORK_STATUSES)[number] | "unknown";
