import type { EventRecord } from "../journal/operation-views.js";
import type { WriteReceipt } from "../journal/run-write.js";
import type { WorkTransitionResult } from "./work-transition.js";

/**
 * The presentations a caller may ask of awr_work_prepare and awr_work_transition
 * (`response_view`). A view only shortens what is shown: the operation runs, checks and records
 * exactly as for `full`, and a write's journal keeps its full result, so the shortened answer
 * says where the whole one is (`full_result`).
 */
export type ResponseViewName = "full" | "summary" | "action";

/** Where the full answer of a shortened one is: a tool and the arguments to call it with. */
export interface FullResultPointer {
  tool: string;
  arguments: Record<string, unknown>;
  basis: string;
}

/** What a shortened answer says about itself: its view and the fields it left out. */
export interface ResponseViewReceipt {
  version: 1;
  view: Exclude<ResponseViewName, "full">;
  /** Dotted paths of the fields this answer omits; the full answer has them. */
  omitted_fields: string[];
  /** The action view's bound on its guidance card, bytes. */
  guidance_max_bytes?: number;
  /** Absent on an answer that failed (it is never shortened). */
  full_result?: FullResultPointer;
}

/** A transition's event without its payload: the outcome a caller acts on. */
export type SummaryEvent = Omit<EventRecord, "payload"> & {
  outcome: { released_claim_ids: unknown };
};

export type TransitionAnswer = WorkTransitionResult & WriteReceipt;

export type TransitionSummary = Omit<TransitionAnswer, "event"> & {
  event: SummaryEvent;
  response_view: ResponseViewReceipt;
};

/**
 * awr_work_transition under `response_view: "summary"`: an applied transition's event loses its
 * payload (its action, from, to, reason and fields repeat the proposal and the work), keeping
 * the released claims; the recorded full answer stays readable through awr_operation_get with
 * the same request_id. Anything but an applied transition is returned as it is.
 */
export function summarizeTransition(
  answer: TransitionAnswer,
  requestId: string,
): TransitionAnswer | TransitionSummary {
  if (answer.proposal?.status !== "applied" || answer.event?.payload === undefined) return answer;
  const { payload, ...event } = answer.event;
  return {
    ...answer,
    event: { ...event, outcome: { released_claim_ids: payload["released_claim_ids"] ?? [] } },
    response_view: {
      version: 1,
      view: "summary",
      omitted_fields: ["event.payload"],
      full_result: {
        tool: "awr_operation_get",
        arguments: { request_id: requestId },
        basis: "the journal's recorded full answer of this request (same client and project)",
      },
    },
  };
}
