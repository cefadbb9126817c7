import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { LedgerError } from "../errors.js";
import { yieldToEventLoop } from "../internal/yield.js";
import type { AdapterResult, ParsedEntity } from "./adapters/index.js";
import { type ParseJob, parseSourceBytes } from "./parse-source.js";

/**
 * Where sources are parsed. A small file is parsed on the spot; a larger one (over
 * INLINE_PARSE_BYTES) in a worker thread, so parsing a large source never holds up the event
 * loop: other projects served by the same process keep answering, and signals are handled.
 * One worker per process, made on first use, one job at a time (jobs queue); it does not keep
 * the process alive while idle. An aborted job terminates the worker (a new one is made for
 * the next job), so a drain or shutdown never waits for a parse to finish.
 */
export const INLINE_PARSE_BYTES = 256 * 1024;

interface Pending {
  job: ParseJob;
  signal: AbortSignal | undefined;
  resolve(result: AdapterResult): void;
  reject(error: unknown): void;
}

let worker: Worker | undefined;
let nextId = 1;
const queue: Pending[] = [];
let running: (Pending & { id: number; entities: ParsedEntity[] }) | undefined;

/**
 * The worker module next to this one. When this code runs from its TypeScript sources (the
 * package's own tests), the worker first registers tsx's loader (a dev dependency) and then
 * imports the .ts module; the built package starts parse-worker.js directly.
 */
function workerEntry(): URL {
  const here = import.meta.url;
  if (!here.endsWith(".ts")) return new URL("./parse-worker.js", here);
  // tsx's ESM API as its package exports name it (`tsx/esm/api`, import condition).
  const manifest = createRequire(here).resolve("tsx/package.json");
  const exports = JSON.parse(readFileSync(manifest, "utf8")).exports["./esm/api"].import.default;
  const tsx = pathToFileURL(join(dirname(manifest), exports)).href;
  const entry = new URL("./parse-worker.ts", here).href;
  const code = `const { register } = await import(${JSON.stringify(tsx)}); register(); await import(${JSON.stringify(entry)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}

function startWorker(): Worker {
  const made = new Worker(workerEntry(), { resourceLimits: { maxOldGenerationSizeMb: 1536 } });
  made.on("message", (message) => void onMessage(made, message));
  made.on("error", (error) => fail(made, error));
  made.on("exit", (code) => {
    if (worker === made) worker = undefined;
    if (running !== undefined && code !== 0)
      fail(made, new Error(`the parse worker stopped (exit ${code})`));
  });
  made.unref();
  return made;
}

function fail(from: Worker, error: unknown): void {
  if (worker === from) worker = undefined;
  void from.terminate();
  const job = running;
  running = undefined;
  if (job !== undefined) {
    const oom = (error as NodeJS.ErrnoException).code === "ERR_WORKER_OUT_OF_MEMORY";
    job.reject(
      oom
        ? new LedgerError(
            "InvalidInput",
            `Source ${job.job.path} needs more memory to parse than a source may use; split the file.`,
            { path: job.job.path },
          )
        : error,
    );
  }
  next();
}

async function onMessage(
  from: Worker,
  message: { id: number; type: string } & Record<string, unknown>,
) {
  const job = running;
  if (job === undefined || message.id !== job.id) return;
  if (message.type === "entities") {
    job.entities.push(...(message["entities"] as ParsedEntity[]));
    await yieldToEventLoop();
    if (running === job) from.postMessage({ type: "more" });
    return;
  }
  running = undefined;
  from.unref();
  job.signal?.removeEventListener("abort", onAbort);
  job.resolve({
    entities: job.entities,
    dependencies: message["dependencies"] as AdapterResult["dependencies"],
    issues: message["issues"] as AdapterResult["issues"],
    ...(message["note"] === undefined ? {} : { note: message["note"] as Record<string, unknown> }),
  });
  next();
}

function onAbort(): void {
  const job = running;
  if (job === undefined || job.signal?.aborted !== true) return;
  running = undefined;
  const stopping = worker;
  worker = undefined;
  void stopping?.terminate();
  job.reject(job.signal.reason);
  next();
}

function next(): void {
  if (running !== undefined) return;
  const pending = queue.shift();
  if (pending === undefined) return;
  if (pending.signal?.aborted) {
    pending.reject(pending.signal.reason);
    next();
    return;
  }
  worker ??= startWorker();
  const id = nextId++;
  running = { ...pending, id, entities: [] };
  pending.signal?.addEventListener("abort", onAbort, { once: true });
  worker.ref();
  worker.postMessage({ type: "parse", id, job: pending.job });
}

/** Parses one source file, off the main thread when it is large. */
export function parseJob(job: ParseJob, signal?: AbortSignal): Promise<AdapterResult> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (job.bytes.byteLength <= INLINE_PARSE_BYTES) return Promise.resolve(parseSourceBytes(job));
  return new Promise((resolve, reject) => {
    const pending: Pending = { job, signal, resolve, reject };
    queue.push(pending);
    signal?.addEventListener(
      "abort",
      () => {
        const at = queue.indexOf(pending);
        if (at >= 0) {
          queue.splice(at, 1);
          reject(signal.reason);
        }
      },
      { once: true },
    );
    next();
  });
}
