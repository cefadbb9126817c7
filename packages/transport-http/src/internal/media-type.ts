/** The media type of a response without parameters, lower-cased ("" when absent). */
export function mediaTypeOf(response: Response): string {
  const header = response.headers.get("content-type") ?? "";
  return (header.split(";")[0] ?? "").trim().toLowerCase();
}

export const EVENT_STREAM = "text/event-stream";
export const JSON_MEDIA_TYPE = "application/json";
