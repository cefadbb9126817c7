import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type { WorkFieldChanges } from "../core/runtime-context.js";

/**
 * The work-action state machine. Pure data plus one planning function, so
 * the rules are testable without a database and the transition code only executes a plan.
 */
export const WORK_ACTIONS = [
  "progress",
  "block",
  "unblock",
  "cancel",
  "reopen",
  "complete",
] as const;
export type WorkAction = (typeof WORK_ACTIONS)[number];

/** Statuses from which `cancel` is allowed: everything that is neither finished nor unknown. */
export const OPEN_WORK_STATUSES = [
  "draft",
  "planned",
  "ready",
  "claimed",
  "in_progress",
  "blocked",
] as const;

export interface WorkActionRule {
  readonly from: readonly string[];
  readonly to: string;
  /** The acting session must hold the item's active claim. */
  readonly needsClaim: boolean;
  /** Every required dependency must be `completed`. */
  readonly needsDependencies: boolean;
  readonly event: string;
}

export const WORK_ACTION_RULES: { readonly [A in WorkAction]: WorkActionRule } = {
  progress: {
    from: ["planned", "ready", "claimed", "in_progress"],
    to: "in_progress",
    needsClaim: true,
    needsDependencies: true,
    event: DOMAIN_EVENT_TYPES.workProgressed,
  },
  block: {
    from: ["in_progress"],
    to: "blocked",
    needsClaim: true,
    needsDependencies: false,
    event: DOMAIN_EVENT_TYPES.workBlocked,
  },
  unblock: {
    from: ["blocked"],
    to: "in_progress",
    needsClaim: false,
    needsDependencies: true,
    event: DOMAIN_EVENT_TYPES.workUnblocked,
  },
  cancel: {
    from: OPEN_WORK_STATUSES,
    to: "cancelled",
    needsClaim: false,
    needsDependencies: false,
    event: DOMAIN_EVENT_TYPES.workCancelled,
  },
  reopen: {
    from: ["completed", "cancelled"],
    to: "planned",
    needsClaim: false,
    needsDependencies: false,
    event: DOMAIN_EVENT_TYPES.workReopened,
  },
  complete: {
    from: ["in_progress"],
    to: "completed",
    needsClaim: true,
    needsDependencies: true,
    event: DOMAIN_EVENT_TYPES.workCompleted,
  },
};

export function isWorkAction(value: unknown): value is WorkAction {
  return typeof value === "string" && (WORK_ACTIONS as readonly string[]).includes(value);
}

/**
 * The YAML fields to write for an allowed transition: `block` sets the blocker, leaving
 * `blocked` clears it, and `next_action` changes only when the caller gives one.
 */
export function plannedFieldChanges(
  action: WorkAction,
  current: { status: string; blocker?: string | null },
  input: { next_action?: string; blocker?: string },
): WorkFieldChanges {
  const rule = WORK_ACTION_RULES[action];
  const changes: WorkFieldChanges = { status: rule.to };
  if (input.next_action !== undefined) changes.next_action = input.next_action;
  if (action === "block") changes.blocker = input.blocker ?? null;
  else if (current.status === "blocked" || (current.blocker ?? null) !== null) {
    changes.blocker = null;
  }
  return changes;
}

/** Null when `action` may leave `status`; otherwise the reason it may not. */
export function transitionRefusal(action: WorkAction, status: string): string | null {
  const rule = WORK_ACTION_RULES[action];
  if (rule.from.includes(status)) return null;
  return `cannot ${action} work in status ${status} (allowed from: ${rule.from.join(", ")})`;
}
