import type { SystemFacts } from '../types.js';

/** What the unified layer knows of Pipedrive without loading it. */
export const facts: SystemFacts = {
  // Its mailbox API is read-only.
  emailWrites: { create: false, update: false },
  contactAddressFields: {},
  unmapped: {
    Account: ['description', 'phone'],
    // A lead's email, phones and job title are its person's (decision 0044): kept, and a create makes the person.
    Lead: ['account'],
    User: ['firstName', 'lastName'],
    // An activity is done or not (the document: a task's status is not supported there).
    Task: ['priority', 'status'],
    Event: ['isAllDayEvent'],
    // A Pipedrive mail message has no bounce flag and no send status (only its tracking).
    Email: ['isBounced', 'status'],
  },
  // The service's document: a lead's email and phones are not supported by LeadUpdate (they are its person's).
  notUpdated: { Lead: ['email', 'phone', 'mobilePhone'] },
  engagementUnmapped: { Contact: [], Account: [] },
};
