import { parentPort } from "node:worker_threads";
import type { AdapterResult } from "./adapters/index.js";
import { type ParseJob, parseSourceBytes } from "./parse-source.js";

/**
 * The parse worker (see parse-pool.ts): parses one job at a time off the main thread and hands
 * the entities back in batches, one batch per `more` request, so the main thread takes them in
 * slices between its other work instead of deserialising a large source's result in one go.
 */
export const ENTITY_BATCH = 2000;

let current: { id: number; result: AdapterResult; sent: number } | undefined;

function sendBatch(): void {
  if (current === undefined) return;
  const { id, result, sent } = current;
  if (sent < result.entities.length) {
    parentPort?.postMessage({
      id,
      type: "entities",
      entities: result.entities.slice(sent, sent + ENTITY_BATCH),
    });
    current.sent += ENTITY_BATCH;
    return;
  }
  parentPort?.postMessage({
    id,
    type: "done",
    dependencies: result.dependencies,
    issues: result.issues,
    note: result.note,
  });
  current = undefined;
}

parentPort?.on(
  "message",
  (message: { type: "parse"; id: number; job: ParseJob } | { type: "more" }) => {
    if (message.type === "parse") {
      current = { id: message.id, result: parseSourceBytes(message.job), sent: 0 };
    }
    sendBatch();
  },
);
