import type { SystemFacts } from '../types.js';

/** What the unified layer knows of Zoho CRM without loading it. */
export const facts: SystemFacts = {
  // A send_mail action logs an email; none is updated.
  emailWrites: { create: true, update: false },
  contactAddressFields: {},
  // A Zoho email lists its sender and its to and cc recipients, never its bcc ones.
  unmapped: { Event: ['type'], Email: ['bcc'] },
  notUpdated: {},
  engagementUnmapped: { Contact: [], Account: [] },
};
