import * as z from 'zod';
import { once } from '../shared/once.js';

const hexId = once(() => z.string().regex(/^[0-9a-f]{32}$/, 'must be 32 lowercase hex characters'));
const isoTime = once(() => z.iso.datetime());

/**
 * An engagement mailbox. Outreach mailboxes have no `isDefault`; Apollo mailboxes have no times
 * (quirks of the original service, kept).
 */
export const mailboxSchema = once(() =>
  z
    .object({
      id: hexId(),
      email: z.string(),
      isDefault: z.boolean().optional(),
      createdTime: isoTime().optional(),
      modifiedTime: isoTime().optional(),
      associations: z.object({ ownerUserId: z.string().nullable() }).strict(),
    })
    .strict(),
);
export type Mailbox = z.infer<ReturnType<typeof mailboxSchema>>;

/** An engagement user. Apollo users have no `modifiedTime` (a quirk of the original service, kept). */
export const engagementUserSchema = once(() =>
  z
    .object({
      id: hexId(),
      firstName: z.string().nullable(),
      lastName: z.string().nullable(),
      email: z.string().nullable(),
      createdTime: isoTime().optional(),
      modifiedTime: isoTime().optional(),
      associations: z.object({ taskIds: z.array(z.string()), actionIds: z.array(z.string()) }).strict(),
    })
    .strict(),
);
export type EngagementUser = z.infer<ReturnType<typeof engagementUserSchema>>;

/** The two engagement collections, named as in their endpoints and response arrays. */
export type EngagementCollection = 'mailboxes' | 'users';
