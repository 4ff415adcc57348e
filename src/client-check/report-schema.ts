import * as z from 'zod';
import { RULE_IDS } from './rules.js';

/** The client-check report as the OpenAPI document describes it (see report.ts for each field). */
const evidence = z.object({
  at: z.iso.datetime(),
  since: z.string().describe('From the start of the check: +3.201s'),
  request: z.string().describe("The request, tokens and cursors cut short; '' when the evidence is no single request"),
  status: z.number().int().describe("Its answer's status (0 when none applies)"),
  detail: z.string(),
});

const ruleReport = z.object({
  rule: z.enum(RULE_IDS),
  title: z.string(),
  status: z.enum(['pass', 'fail', 'not-exercised']),
  exercised: z.number().int().describe('How many times the run put the rule to the test'),
  failures: z.number().int(),
  summary: z.string().describe('One line: the first failure, or what the run showed'),
  evidence: z.array(evidence).describe('Up to five failures, or up to three examples of the rule holding'),
  hint: z.string().optional().describe('What a fix looks like: with a failure only'),
});

const hardCase = z.object({
  at: z.iso.datetime(),
  since: z.string(),
  case: z.enum(['rate-limit', 'server-error', 'connection-deleted']),
  read: z.number().int().optional().describe("Which of the API token's reads met it"),
  request: z.string().optional(),
  status: z.number().int().optional(),
  retryAfter: z.number().int().optional(),
  answers: z.number().int().optional().describe("A 503's length: how many attempts of that request in a row it answers"),
  connectionId: z.string().optional(),
});

export const clientCheckReportSchema = z
  .object({
    ok: z.boolean().describe('No rule failed (with strict=true, and none went unexercised)'),
    strict: z.boolean(),
    final: z.boolean().describe('Judged as if the client is done: a walk of pages still open counts as abandoned'),
    startedAt: z.iso.datetime(),
    at: z.iso.datetime(),
    settings: z.object({
      seed: z.number().int(),
      pageSize: z.number().int(),
      retryAfter: z.string(),
      faults: z.boolean(),
      deleteConnectionAfter: z.string().nullable(),
    }),
    requests: z.number().int().describe("The API token's requests to the service's endpoints since the check started"),
    hardCases: z.object({
      rateLimited: z.number().int(),
      unavailable: z.number().int(),
      connectionsDeleted: z.number().int(),
      cases: z.array(hardCase),
    }),
    rules: z.array(ruleReport),
  })
  .meta({ description: "The client-check report of the caller's API token: each conduct rule's verdict with its evidence" });
