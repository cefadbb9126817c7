/** The action view's four queues, in the order it lists them (kept apart for a light import). */
export const STATUS_QUEUES = ["current", "ready", "waiting", "blocked"] as const;
export type StatusQueue = (typeof STATUS_QUEUES)[number];
