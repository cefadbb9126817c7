export const DECISION_STATUSES = ["proposed", "accepted", "superseded", "rejected"] as const;
export type DecisionStatus = (typeof DECISION_STATUSES)[number] | "unknown";

/** The status spellings read as each decision status (English and Chinese). */
const SPELLINGS: Record<(typeof DECISION_STATUSES)[number], readonly string[]> = {
  proposed: ["proposed", "提议", "拟议", "提議", "擬議", "草案"],
  accepted: ["accepted", "已接受", "已采纳", "已採納", "已通过", "已通過"],
  superseded: ["superseded", "已取代", "已替代"],
  rejected: ["rejected", "已拒绝", "已拒絕", "已否决", "已否決"],
};

/** The normalised status of a decision's raw status text; `unknown` when it is none of them. */
export function decisionStatus(raw: string): DecisionStatus {
  const value = raw.trim().toLowerCase();
  for (const status of DECISION_STATUSES) {
    if (SPELLINGS[status].includes(value)) return status;
  }
  return "unknown";
}
