import type { SystemFacts } from '../types.js';

/** What the unified layer knows of Salesforce without loading it. */
export const facts: SystemFacts = {
  emailWrites: { create: true, update: true },
  contactAddressFields: {},
  unmapped: {},
  notUpdated: {},
  engagementUnmapped: { Contact: [], Account: [] },
};
