import { createRequire } from "node:module";
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

/** The worker module next to this one; from TypeScript sources (tests), loaded through tsx. */
function startWorker(): Worker {
  const here = import.meta.url;
  const fromSource = here.endsWith(".ts");
  const url = new URL(fromSource ? "./parse-worker.ts" : "./parse-worker.js", here);
  const execArgv = fromSource
    ? ["--import", pathToFileURL(createRequire(here).resolve("tsx")).href]
    : undefined;
  const made = new Worker(url, {
    ...(execArgv === undefined ? {} : { execArgv }),
    resourceLimits: { maxOldGenerationSizeMb: 1536 },
  });
  made.on("message", (message) => void onMessage(made, message));
  made.on("error", (error) => fail(made, error));
  made.on("exit", (code) => {
    if (worker === made) worker = undefined;
    if (running !== undefined && code !== 0) fail(made, new Error(`the parse worker stopped (exit ${code})`));
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

async function onMessage(from: Worker, message: { id: number; type: string } & Record<string, unknown>) {
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
