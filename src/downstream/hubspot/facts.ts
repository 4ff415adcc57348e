import type { SystemFacts } from '../types.js';

/** What the unified layer knows of HubSpot without loading it. */
export const facts: SystemFacts = {
  emailWrites: { create: true, update: true },
  contactAddressFields: {},
  unmapped: { Event: ['isAllDayEvent'] },
  notUpdated: {},
  engagementUnmapped: { Contact: [], Account: [] },
};
