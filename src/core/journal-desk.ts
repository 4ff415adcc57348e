import { checkOptionNames } from '../shared/option-names.js';
import { checkJournalFilter, JOURNAL_FILTER_NAMES, type JournalEntry, type JournalFilter, type RequestJournal } from './journal.js';
import { acceptedTenant } from './tenants.js';

/** A tenant's requests in the journal, read and cleared by API key (the first accepted one by default). */
export class JournalDesk {
  constructor(
    private readonly journal: RequestJournal,
    private readonly apiKeys: readonly string[],
  ) {}

  requests(filter?: JournalFilter & { apiKey?: string }): JournalEntry[] {
    const { apiKey = this.apiKeys[0]!, ...rest } = checkOptionNames(filter, [...JOURNAL_FILTER_NAMES, 'apiKey'], 'requests()');
    checkJournalFilter(rest);
    return this.journal.list(acceptedTenant(this.apiKeys, apiKey), rest);
  }

  clearRequests(apiKey?: string): void {
    this.journal.clear(apiKey === undefined ? undefined : acceptedTenant(this.apiKeys, apiKey));
  }
}
