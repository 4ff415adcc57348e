import * as z from 'zod';
import type { ServiceEvent } from '../model/events.js';
import { once } from '../shared/once.js';
import { attemptChaosSchema } from './chaos.js';

/*
 * What the delivery engine's parts (./dispatcher.ts) speak of: the states of a delivery, its
 * attempts and how the log shows it. Each enumeration is defined here once; the control API's
 * filter, the OpenAPI document and the snapshot schema use these.
 */

/**
 * pending → delivering → succeeded | retrying (→ delivering …) | failed.
 * `pending`: waiting for a webhook, or behind an earlier event of the same connection.
 */
export const DELIVERY_STATES = ['pending', 'delivering', 'succeeded', 'retrying', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** Succeeded and failed deliveries are finished: nothing more happens to them unless redelivered. */
export const isFinished = (state: DeliveryState): boolean => state === 'succeeded' || state === 'failed';

/** What started an attempt: `schedule` for the automatic attempts, `redeliver` for one asked for by hand, `chaos` for a duplicate chaos sent. */
export const ATTEMPT_TRIGGERS = ['schedule', 'redeliver', 'chaos'] as const;
export type AttemptTrigger = (typeof ATTEMPT_TRIGGERS)[number];

/** One attempt, as the delivery log shows it and a snapshot keeps it. */
export const deliveryAttemptSchema = once(() =>
  z
    .object({
      /** 1 for the first attempt. */
      attempt: z.number().int().positive(),
      /** Sandbox time the attempt started (ISO-8601). */
      time: z.string(),
      webhookUrl: z.string(),
      /** The `x-service-timestamp` sent. */
      timestamp: z.string(),
      /** The receiver's HTTP status, or null when there was none (network error, timeout). */
      status: z.number().int().nullable(),
      /** Why it failed without a status: `ECONNREFUSED`, `timeout after 10000ms`, … */
      error: z.string().nullable(),
      /** Real milliseconds the request took (a network measure, even on a virtual clock). */
      durationMs: z.number().nonnegative(),
      /** `schedule` for the automatic attempts, `redeliver` for one asked for by hand, `chaos` for a duplicate chaos sent. */
      trigger: z.enum(ATTEMPT_TRIGGERS),
      /** What delivery chaos did to this attempt; absent when it did nothing. */
      chaos: attemptChaosSchema().optional(),
    })
    .strict(),
);
export type DeliveryAttempt = z.infer<ReturnType<typeof deliveryAttemptSchema>>;

/** An event and the story of its delivery, as the delivery log shows it. */
export interface Delivery {
  eventId: string;
  connectionId: string;
  type: ServiceEvent['type'];
  state: DeliveryState;
  createdTime: string;
  /** When the next automatic attempt is due, while retrying. */
  nextAttemptTime: string | null;
  /** Why it is failed: `no 2xx answer after 8 attempts`, `webhook deleted before delivery`; null otherwise. */
  failureReason: string | null;
  attempts: DeliveryAttempt[];
  event: ServiceEvent;
}
