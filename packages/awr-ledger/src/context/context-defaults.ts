import { LIMITS } from "../core/limits.js";

/** Default token budgets: L1 (`context compile`) and L0 (`context bootstrap`). */
export const DEFAULT_CONTEXT_BUDGET = LIMITS.budget.default;
export const DEFAULT_BOOTSTRAP_BUDGET = LIMITS.bootstrapBudgetDefault;

/**
 * Bounds on the changed entities `context delta` lists per source change
 * (docs/compatibility/context.md).
 */
export const ENTITY_LIMIT = LIMITS.entityLimit;

/** Events `context delta` lists of each kind (default 12, docs/compatibility/context.md). */
export const DELTA_EVENT_LIMIT = LIMITS.deltaEventLimit;
