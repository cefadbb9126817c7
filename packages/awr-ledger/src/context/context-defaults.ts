/** Default token budgets: L1 (`context compile`) and L0 (`context bootstrap`). */
export const DEFAULT_CONTEXT_BUDGET = 5000;
export const DEFAULT_BOOTSTRAP_BUDGET = 1000;
