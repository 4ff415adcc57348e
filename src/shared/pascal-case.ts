/**
 * An identifier or a dashed name in PascalCase, for the names derived from it: operationIds
 * (`listCrm` + `Contacts`) and the OpenAPI document's schema names (`ListCrmContactsResponse`).
 * The first letter and each letter after a dash become capitals and those dashes go; the rest is
 * kept as it is.
 *
 * @example
 * pascal('listContacts'); // 'ListContacts'
 * pascal('call-logs'); // 'CallLogs'
 */
export function pascal(text: string): string {
  return text.replace(/(?:^|-)([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}
