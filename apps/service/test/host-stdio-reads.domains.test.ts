/**
 * The scenarios of host-stdio-reads.test.ts again, every tool called through its domain tool (grouped
 * discovery's child_tool and arguments) rather than by its flat name: the answers must be the same.
 */
process.env["AWR_TEST_THROUGH_DOMAINS"] = "1";
await import("./host-stdio-reads.test.js");
