#!/usr/bin/env node
import { createRequire } from "node:module";
import { loadDriversFrom } from "@awr/awr-ledger/drivers";
import { run } from "./run.js";

// The database drivers are this package's dependencies: the ledger finds them through this
// package's resolution, wherever the install put them (a global install, a bundled awr).
loadDriversFrom(createRequire(import.meta.url));

// The binary is a thin wrapper: run() does everything against the given streams. The first
// Ctrl-C cancels the operation in flight (the run then exits 130); a second one exits at once.
const controller = new AbortController();
let interrupts = 0;
const onSignal = () => {
  interrupts += 1;
  if (interrupts > 1) process.exit(130);
  controller.abort(new Error("interrupted by the user"));
};
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);
// A reader that stops early (`awr --help | head`) closes the pipe: that is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const code = await run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
});
process.off("SIGINT", onSignal);
process.off("SIGTERM", onSignal);
process.exitCode = code;
