import type { Faker } from '@faker-js/faker';
import type { CrmFields, CrmObjectType } from '../../model/crm.js';
import { CUSTOM_FIELD_OPTIONS, DEAL_STAGES, EVENT_TYPES, TASK_PRIORITIES, TASK_STATUSES } from '../../model/vocabularies.js';

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** Where generated values get their randomness and their sense of "now". */
export interface FakeContext {
  faker: Faker;
  /** The reference time: generated history lies before it, plans (due dates, meetings) around it. */
  now: number;
}

const INDUSTRIES = [
  'Software',
  'Financial Services',
  'Healthcare',
  'Manufacturing',
  'Retail',
  'Education',
  'Telecommunications',
  'Media',
  'Energy',
  'Transportation',
] as const;

/** expectedRevenue = amount × probability, to the cent. */
export function expectedRevenue(amount: number | null, probability: string | null): number | null {
  if (amount === null || probability === null) return null;
  return Math.round(amount * Number(probability) * 100) / 100;
}

/** A time in the past year, before `now`. */
export function pastTime(ctx: FakeContext, maxDaysAgo = 365, minDaysAgo = 1): number {
  return ctx.now - ctx.faker.number.int({ min: minDaysAgo * DAY, max: maxDaysAgo * DAY });
}

export function companyDomain(faker: Faker, companyName: string): string {
  const slug = faker.helpers.slugify(companyName.toLowerCase().replace(/[^a-z0-9 ]/g, '')).replace(/-+/g, '-');
  return `${slug.slice(0, 40)}.com`;
}

function personEmail(faker: Faker, first: string, last: string, domain?: string): string {
  return faker.internet.email({ firstName: first, lastName: last, provider: domain ?? 'example.com' }).toLowerCase();
}

/** Realistic values for every field of each type (no associations: the caller links records). */
export const fakeFields: { [T in CrmObjectType]: (ctx: FakeContext) => CrmFields<T> } = {
  User: ({ faker }) => {
    const firstName = faker.person.firstName();
    const lastName = faker.person.lastName();
    return { firstName, lastName, email: personEmail(faker, firstName, lastName) };
  },
  Contact: ({ faker }) => {
    const firstName = faker.person.firstName();
    const lastName = faker.person.lastName();
    return {
      email: personEmail(faker, firstName, lastName, faker.internet.domainName()),
      firstName,
      lastName,
      jobTitle: faker.person.jobTitle(),
      phone: faker.phone.number({ style: 'national' }),
      mobilePhone: faker.datatype.boolean(0.6) ? faker.phone.number({ style: 'national' }) : null,
    };
  },
  Account: ({ faker }) => {
    const name = faker.company.name();
    return {
      name,
      description: faker.company.catchPhrase(),
      industry: faker.helpers.arrayElement(INDUSTRIES),
      annualRevenue: faker.number.int({ min: 50, max: 500_000 }) * 1_000,
      numberOfEmployees: faker.number.int({ min: 5, max: 20_000 }),
      website: `https://www.${companyDomain(faker, name)}`,
      phone: faker.phone.number({ style: 'national' }),
      address: {
        street: faker.location.streetAddress(),
        city: faker.location.city(),
        state: faker.location.state({ abbreviated: true }),
        postalCode: faker.location.zipCode('#####'),
        country: 'United States',
      },
    };
  },
  Deal: (ctx) => {
    const { faker } = ctx;
    const { stage, probability } = faker.helpers.arrayElement(DEAL_STAGES);
    const amount = faker.number.int({ min: 10, max: 500 }) * 500;
    const isClosed = stage.startsWith('Closed');
    return {
      name: `${faker.company.buzzNoun()} ${faker.helpers.arrayElement(['expansion', 'renewal', 'pilot', 'rollout', 'upgrade'])}`,
      stage,
      amount,
      closeDate: iso(isClosed ? pastTime(ctx, 180) : ctx.now + faker.number.int({ min: 7, max: 180 }) * DAY),
      probability,
      expectedRevenue: expectedRevenue(amount, probability),
      isWon: stage === 'Closed Won',
      isClosed,
    };
  },
  Lead: ({ faker }) => {
    const firstName = faker.person.firstName();
    const lastName = faker.person.lastName();
    const account = faker.company.name();
    return {
      firstName,
      lastName,
      jobTitle: faker.person.jobTitle(),
      email: personEmail(faker, firstName, lastName, companyDomain(faker, account)),
      account,
      phone: faker.phone.number({ style: 'national' }),
      mobilePhone: faker.datatype.boolean(0.4) ? faker.phone.number({ style: 'national' }) : null,
    };
  },
  Note: ({ faker }) => ({ content: faker.lorem.paragraph({ min: 1, max: 3 }) }),
  Task: (ctx) => {
    const { faker } = ctx;
    const isDone = faker.datatype.boolean(0.35);
    return {
      subject: `${faker.helpers.arrayElement(['Call', 'Email', 'Follow up with', 'Send proposal to', 'Schedule demo with'])} ${faker.person.firstName()}`,
      body: faker.lorem.sentence(),
      isDone,
      dueDate: iso(ctx.now + faker.number.int({ min: -30, max: 30 }) * DAY),
      status: isDone ? 'Completed' : faker.helpers.arrayElement(TASK_STATUSES),
      priority: faker.helpers.arrayElement(TASK_PRIORITIES),
    };
  },
  Event: (ctx) => {
    const { faker } = ctx;
    const isAllDayEvent = faker.datatype.boolean(0.1);
    // Meetings start on the quarter hour, within two months either side of now.
    const start = Math.floor((ctx.now + faker.number.int({ min: -60, max: 60 }) * DAY) / 900_000) * 900_000;
    const startDay = Math.floor(start / DAY) * DAY;
    return {
      subject: `${faker.helpers.arrayElement(['Intro', 'Discovery', 'Demo', 'Quarterly review', 'Kickoff'])}: ${faker.company.name()}`,
      description: faker.lorem.sentence(),
      type: faker.helpers.arrayElement(EVENT_TYPES),
      location: faker.datatype.boolean(0.5) ? 'Video call' : faker.location.streetAddress(),
      startDateTime: iso(isAllDayEvent ? startDay : start),
      endDateTime: iso(isAllDayEvent ? startDay + DAY : start + faker.helpers.arrayElement([30, 45, 60]) * 60_000),
      isAllDayEvent,
    };
  },
  EventAttendee: ({ faker }) => ({
    status: faker.helpers.arrayElement(['Confirmed', 'Confirmed', 'Confirmed', 'Declined'] as const),
    associatedObjectType: 'Other',
    email: faker.internet.email().toLowerCase(),
  }),
  Email: (ctx) => {
    const { faker } = ctx;
    const isIncoming = faker.datatype.boolean(0.35);
    const isBounced = !isIncoming && faker.datatype.boolean(0.05);
    const subject = faker.helpers.arrayElement(EMAIL_SUBJECTS);
    const body = faker.lorem.paragraph({ min: 1, max: 3 });
    return {
      from: faker.internet.email().toLowerCase(),
      to: [faker.internet.email().toLowerCase()],
      cc: faker.datatype.boolean(0.2) ? [faker.internet.email().toLowerCase()] : [],
      bcc: [],
      subject,
      body,
      bodyHtml: `<p>${body}</p>`,
      messageDate: iso(pastTime(ctx, 90)),
      isIncoming,
      isBounced,
      hasAttachment: faker.datatype.boolean(0.15),
      status: isBounced ? 'BOUNCED' : 'SENT',
    };
  },
};

const EMAIL_SUBJECTS = [
  'Following up on our call',
  'Pricing and next steps',
  'Intro: a quick question',
  'Re: proposal',
  'Agenda for Thursday',
  'Contract draft attached',
  'Checking in',
] as const;

/** Custom fields as the downstream holds them (shown under `additional` and by the passthrough). */
export function fakeCustomFields(faker: Faker): Record<string, string | number | boolean> {
  return {
    region: faker.helpers.arrayElement(CUSTOM_FIELD_OPTIONS.region),
    tier: faker.helpers.arrayElement(CUSTOM_FIELD_OPTIONS.tier),
    source: faker.helpers.arrayElement(CUSTOM_FIELD_OPTIONS.source),
    score: faker.number.int({ min: 0, max: 100 }),
  };
}
