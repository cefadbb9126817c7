// The five reads whose warm latency AWR sets targets for (p95), by MCP tool name and arguments.
// `work` rotates through the fixture's active items.
export const READS = [
  { name: "status", tool: "awr_project_status", targetMs: 5, args: () => ({}) },
  { name: "ready", tool: "awr_work_ready", targetMs: 10, args: () => ({ limit: 20 }) },
  { name: "work get", tool: "awr_work_get", targetMs: 5, args: (work) => ({ work }) },
  { name: "search", tool: "awr_search", targetMs: 10, args: () => ({ text: "invoice payment" }) },
  {
    name: "context compile",
    tool: "awr_context_compile",
    targetMs: 25,
    args: (work) => ({ work, budget: 5000 }),
  },
];
