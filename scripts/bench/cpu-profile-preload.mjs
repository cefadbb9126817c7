// Preloaded with `--import` through NODE_OPTIONS (which refuses --cpu-prof) so that every node
// process of a command tree writes a CPU profile to $AWR_BENCH_PROF_DIR when it exits normally.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";

const dir = process.env.AWR_BENCH_PROF_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.start");
  process.on("exit", () => {
    // A session on the same thread dispatches synchronously, so this completes before exit.
    session.post("Profiler.stop", (error, result) => {
      if (!error)
        writeFileSync(join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
