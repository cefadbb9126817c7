import type { HttpResponse } from "./http-exchange.js";

/** The media type of a response without parameters, lower-cased ("" when absent). */
export function mediaTypeOf(response: HttpResponse): string {
  const header = response.header("content-type") ?? "";
  const end = header.indexOf(";");
  return (end < 0 ? header : header.slice(0, end)).trim().toLowerCase();
}

export const EVENT_STREAM = "text/event-stream";
export const JSON_MEDIA_TYPE = "application/json";
