import { LIMITS } from "../core/limits.js";

/** Default token budgets: L1 (`context compile`) and L0 (`context bootstrap`). */
export const DEFAULT_CONTEXT_BUDGET = LIMITS.budget.default;
export const DEFAULT_BOOTSTRAP_BUDGET = LIMITS.bootstrapBudgetDefault;

<<<<<<< HEAD
/**
 * Bounds on the changed entities `context delta` lists per source change
 * (docs/compatibility/context.md).
 */
export const ENTITY_LIMIT = { min: 1, max: 200, default: 24 } as const;

/** Events `context delta` lists of each kind: the original's default 12, within the list bounds. */
export const DELTA_EVENT_LIMIT = { min: 1, max: 100, default: 12 } as const;
=======
/** The original's bounds on changed entities `context delta` lists per source change. */
export const ENTITY_LIMIT = LIMITS.entityLimit;
>>>>>>> rules-home
