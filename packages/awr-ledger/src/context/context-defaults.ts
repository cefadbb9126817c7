import { LIMITS } from "../core/limits.js";

/** Default token budgets: L1 (`context compile`) and L0 (`context bootstrap`). */
export const DEFAULT_CONTEXT_BUDGET = LIMITS.budget.default;
export const DEFAULT_BOOTSTRAP_BUDGET = LIMITS.bootstrapBudgetDefault;
