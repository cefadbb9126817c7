import { LIMITS } from "@awr/awr-ledger/catalog";
import { LocalBackend } from "../backend/local-backend.js";
import { usageError } from "../cli-error.js";
import type { CommandContext } from "../context.js";
import { packageVersion } from "../internal/package-version.js";
import { openBrowser } from "./browser.js";
import { createDemoProject, type DemoProject } from "./demo-project.js";
import { type RunningInspector, startInspectorServer } from "./server.js";
import { webDirectory } from "./static-files.js";

export interface RunInspectorOptions {
  port: number;
  demo?: boolean;
  allowReindex?: boolean;
  /** false: --no-open. */
  open?: boolean;
}

/**
 * AWR_INSPECTOR_CONCURRENT (the original inspector's variable, for tests): fewer concurrent API
 * requests than LIMITS.inspector.concurrent, never more.
 */
function concurrency(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const value = Number(env["AWR_INSPECTOR_CONCURRENT"]);
  return Number.isInteger(value) && value >= 1 && value <= LIMITS.inspector.concurrent
    ? value
    : undefined;
}

/**
 * AWR_INSPECTOR_LIFETIME_MS (for tests): the inspector stops by itself after this long, so a
 * server a test started cannot outlive the test run even when the test never stops it.
 */
function lifetime(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const value = Number(env["AWR_INSPECTOR_LIFETIME_MS"]);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * Resolves when the run is told to stop (the binary's Ctrl-C or SIGTERM aborts its signal), or
 * once `lifetimeMs` has passed.
 */
function stopped(signal: AbortSignal | undefined, lifetimeMs: number | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (lifetimeMs !== undefined) setTimeout(resolve, lifetimeMs).unref();
    if (signal === undefined) {
      const stop = () => {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        resolve();
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      return;
    }
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/**
 * Opens the project's ledger once (the demo's, with --demo), serves the board, prints its URL,
 * and on the stop signal closes the server, then the ledger, then removes the demo copy.
 */
export async function runInspector(
  context: CommandContext,
  options: RunInspectorOptions,
): Promise<void> {
  const { env } = context.io;
  let demo: DemoProject | undefined;
  let backend: LocalBackend | undefined;
  let running: RunningInspector | undefined;
  try {
    if (options.demo === true) demo = await createDemoProject(env, context.signal);
    const root = demo?.root ?? (await context.projectRoot());
    backend = await LocalBackend.open(root, {
      env,
      ...(context.signal ? { signal: context.signal } : {}),
    });
    try {
      running = await startInspectorServer(
        {
          backend,
          project: root,
          mode: demo === undefined ? "live" : "demo",
          allowReindex: options.allowReindex === true,
          version: packageVersion(),
          webDirectory: webDirectory(),
          ...(concurrency(env) === undefined ? {} : { concurrent: concurrency(env) as number }),
        },
        options.port,
      );
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
        throw usageError(
          `port ${options.port} is in use on 127.0.0.1; pass another --port, or --port 0 for any free one`,
        );
      }
      throw error;
    }
    if (context.json) context.io.stdout.write(`${JSON.stringify({ url: running.url })}\n`);
    else context.out(`AWR inspector on ${running.url} (Ctrl-C stops it)`);
    if (options.open !== false) openBrowser(running.url, env);
    await stopped(context.signal, lifetime(env));
  } finally {
    await running?.close();
    await backend?.close();
    await demo?.remove();
  }
}
