import type { SystemFacts } from '../types.js';

/** What the unified layer knows of Salesloft without loading it. It answers no unified CRM objects. */
export const facts: SystemFacts = {
  emailWrites: { create: false, update: false },
  contactAddressFields: { city: 'city', state: 'state', country: 'country' },
  unmapped: {},
  notUpdated: {},
  engagementUnmapped: { Contact: ['address.line1', 'address.line2', 'address.postalCode'], Account: ['numberOfEmployees', 'address.line2'] },
};
