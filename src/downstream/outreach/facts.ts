import type { SystemFacts } from '../types.js';

/** What the unified layer knows of Outreach without loading it. It answers no unified CRM objects. */
export const facts: SystemFacts = {
  emailWrites: { create: false, update: false },
  contactAddressFields: {
    line1: 'addressStreet',
    line2: 'addressStreet2',
    city: 'addressCity',
    state: 'addressState',
    postalCode: 'addressZip',
    country: 'addressCountry',
  },
  unmapped: {},
  notUpdated: {},
  engagementUnmapped: { Contact: [], Account: ['phone', 'address.line1', 'address.line2', 'address.state', 'address.postalCode', 'address.country'] },
};
