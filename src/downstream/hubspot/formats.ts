import { namedCustom } from '../custom-fields.js';

/** HubSpot custom fields: the property's internal name, values as strings. */
export const hubspotCustom = namedCustom((key) => key, true);
