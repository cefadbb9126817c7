// The five reads whose warm latency AWR sets targets for (p95), by MCP tool name and arguments.
// `work` rotates through the fixture's active items. targetMs: AWR's stated goals; stdioMs: the
// tighter goal for a warm read over stdio on the 150-item fixture (client, pipe and server).
/**
 * @typedef {object} Read
 * @property {string} name
 * @property {string} tool
 * @property {number} targetMs
 * @property {number} stdioMs
 * @property {(work?: string, i?: number) => Record<string, unknown>} args
 */
/** @type {[Read, ...Read[]]} */
export const READS = [
  {
    name: "status",
    tool: "awr_project_status",
    targetMs: 5,
    stdioMs: 3,
    args: () => ({ view: "full" }),
  },
  {
    name: "ready",
    tool: "awr_work_ready",
    targetMs: 10,
    stdioMs: 5,
    args: () => ({ limit: 20 }),
  },
  { name: "work get", tool: "awr_work_get", targetMs: 5, stdioMs: 3, args: (work) => ({ work }) },
  {
    name: "search",
    tool: "awr_search",
    targetMs: 10,
    stdioMs: 5,
    args: () => ({ text: "invoice payment" }),
  },
  {
    name: "context compile",
    tool: "awr_context_compile",
    targetMs: 25,
    stdioMs: 10,
    args: (work) => ({ work, budget: 5000 }),
  },
];
