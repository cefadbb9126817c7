// Chaos: SIGTERM to the shared HTTP service while 32 clients hammer it (8 of them with journaled
// writes, all of them with reads). No accepted request is cut: every HTTP answer is a complete
// JSON-RPC response (or a 503 refusal once the stop began), the service exits 0, and afterwards
// every write answered as done is in the ledger exactly once, every conflicting one is absent,
// and nothing is left with an unknown outcome. AWR_CHAOS_FULL=1 lets 200 writes land first.
import { isLedgerError, openLedger } from "@awr/awr-ledger";
import { ledgerStore } from "@awr/awr-ledger/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CHAOS_FULL,
  killAllServices,
  makeProject,
  messagesOf,
  post,
  type ServiceProcess,
  startHttpService,
  type TempProject,
  toolCall,
} from "./fixtures/chaos-service.js";

const CLIENTS = 32;
/** Clients that also write (all of them read); more writers on one project mostly conflict. */
const WRITERS = 8;
const WRITES_BEFORE_STOP = CHAOS_FULL ? 200 : 24;

type Outcome = "done" | "conflict" | "refused" | "network" | "unanswered";

interface WriteRecord {
  requestId: string;
  outcome: Outcome;
}

let project: TempProject;
let service: ServiceProcess & { url: string };

beforeAll(async () => {
  project = await makeProject();
  service = await startHttpService(project);
}, 60_000);

afterAll(async () => {
  killAllServices();
  await project?.remove();
});

interface ToolAnswer {
  id?: unknown;
  result?: {
    isError?: boolean;
    structuredContent?: { code?: string; project_revision?: number; details?: { actual?: number } };
  };
  error?: { code: number };
}

describe("SIGTERM under load", () => {
  it("cuts no accepted request and commits every accepted write exactly once", async () => {
    const writes: WriteRecord[] = [];
    const problems: string[] = [];
    let revision = 0;
    let done = 0;
    let stopping = false;
    /** Requests sent before the SIGTERM and answered in full after it: the drain at work. */
    let drained = 0;
    let stopSent: () => void = () => undefined;
    const stopRequested = new Promise<void>((resolve) => {
      stopSent = resolve;
    });
    let rpcId = 0;

    /** One request; returns its single JSON-RPC answer, "refused", or "network". */
    async function call(name: string, args: Record<string, unknown>) {
      const id = ++rpcId;
      const sentBeforeStop = !stopping;
      let response: Awaited<ReturnType<typeof post>>;
      try {
        response = await post(service.url, toolCall(id, name, { project: "chaos", ...args }));
        if (sentBeforeStop && stopping && response.status === 200) drained++;
      } catch {
        if (!stopping) problems.push(`network error before the stop on ${name}`);
        return "network" as const;
      }
      if (response.status === 503 && stopping) return "refused" as const;
      if (response.status !== 200) {
        problems.push(`HTTP ${response.status} on ${name}: ${response.text.slice(0, 200)}`);
        return "network" as const;
      }
      let messages: ToolAnswer[];
      try {
        messages = messagesOf(response) as ToolAnswer[];
      } catch {
        problems.push(`cut or malformed body on ${name}: ${response.text.slice(0, 200)}`);
        return "network" as const;
      }
      const answer = messages.find((m) => m.id === id);
      if (answer === undefined || (answer.result === undefined && answer.error === undefined)) {
        problems.push(`no JSON-RPC answer for ${name}: ${response.text.slice(0, 200)}`);
        return "network" as const;
      }
      return answer;
    }

    async function reader(): Promise<void> {
      for (;;) {
        const read = await call("awr_work_ready", { limit: 5 });
        if (read === "refused" || read === "network") return;
      }
    }

    async function writer(w: number): Promise<void> {
      for (let n = 0; ; n++) {
        const requestId = `load-${w}-${n}`;
        const record: WriteRecord = { requestId, outcome: "unanswered" };
        writes.push(record);
        for (;;) {
          const answer = await call("awr_event_append", {
            event_type: "chaos.load",
            summary: requestId,
            request_id: requestId,
            expected_revision: revision,
          });
          if (answer === "refused" || answer === "network") {
            record.outcome = answer;
            return;
          }
          const content = answer.result?.structuredContent;
          if (answer.result?.isError && content?.code === "RevisionConflict") {
            revision = Math.max(revision, content.details?.actual ?? revision);
            record.outcome = "conflict";
            continue; // a conflict changed nothing: the same request id may be retried
          }
          if (answer.error !== undefined || answer.result?.isError) {
            problems.push(`write ${requestId} failed: ${JSON.stringify(answer)}`);
            return;
          }
          revision = Math.max(revision, content?.project_revision ?? revision);
          record.outcome = "done";
          if (++done === WRITES_BEFORE_STOP) stopSent();
          break;
        }
      }
    }

    const workers = Promise.all(
      Array.from({ length: CLIENTS }, (_, w) => (w < WRITERS ? writer(w) : reader())),
    );
    await stopRequested;
    stopping = true;
    service.proc.kill("SIGTERM");
    await workers;
    expect(await service.exited).toBe(0);
    expect(problems).toEqual([]);
    expect(done).toBeGreaterThanOrEqual(WRITES_BEFORE_STOP);
    expect(drained).toBeGreaterThan(0);

    const ledger = await openLedger({ root: project.root });
    try {
      const caller = { client: "chaos" };
      const events = await ledgerStore(ledger)
        .db.selectFrom("events")
        .select("summary")
        .where("type", "=", "chaos.load")
        .execute();
      const count = new Map<string, number>();
      for (const e of events) count.set(String(e.summary), (count.get(String(e.summary)) ?? 0) + 1);
      for (const write of writes) {
        const n = count.get(write.requestId) ?? 0;
        if (write.outcome === "done") expect(n, write.requestId).toBe(1);
        else if (write.outcome === "conflict") expect(n, write.requestId).toBe(0);
        else {
          // Cut off by the stop: it either never started or it finished; never half-done.
          expect(n, write.requestId).toBeLessThanOrEqual(1);
          const op = await ledger
            .call("awr_operation_get", { request_id: write.requestId }, caller)
            .catch((error: unknown) => {
              if (isLedgerError(error, "NotFound")) return undefined;
              throw error;
            });
          expect(op?.outcome ?? "recorded").toBe("recorded");
          expect(n).toBe(op === undefined ? 0 : 1);
        }
      }
      const unknown = await ledger.call(
        "awr_operation_list",
        { outcome: "unknown", limit: 100 },
        caller,
      );
      expect(unknown.operations).toEqual([]);
    } finally {
      await ledger.close();
    }
  }, 120_000);
});
