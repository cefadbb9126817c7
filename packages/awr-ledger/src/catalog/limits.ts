/** The bounds on tool inputs and the ledger's other caller-facing limits (core/limits.ts). */
export { LIMITS } from "../core/limits.js";
