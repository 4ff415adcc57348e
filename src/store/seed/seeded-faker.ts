import { createRequire } from 'node:module';
import type { Faker } from '@faker-js/faker';
import type { Random } from '../../core/random.js';
import { companyDomain } from './fake-fields.js';

type FakerModule = typeof import('@faker-js/faker');
let fakerModule: FakerModule | undefined;

/**
 * An English Faker seeded from `random`. Faker is a large module: it is loaded on the first
 * call (the first connection), not when the sandbox or `crm-sandbox serve` starts.
 *
 * @example const faker = seededFaker(random.fork('write-values'));
 */
export function seededFaker(random: Random): Faker {
  fakerModule ??= createRequire(import.meta.url)('@faker-js/faker') as FakerModule;
  const faker = new fakerModule.Faker({ locale: [fakerModule.en, fakerModule.base] });
  faker.seed(random.uint32());
  return faker;
}

/**
 * A connection's org, drawn from its `seed` stream, and that stream's Faker just after the
 * draw. The Faker is not kept with the connection (it costs memory per connection): the data
 * set rebuilds it with this same call, so its seed data is the same as if it had been kept.
 *
 * @example const { faker, orgName, slug } = orgFaker(connection.random);
 */
export function orgFaker(connectionRandom: Random): { faker: Faker; orgName: string; slug: string } {
  const faker = seededFaker(connectionRandom.fork('seed'));
  const orgName = faker.company.name();
  const slug = companyDomain(faker, orgName).replace(/\.com$/, '');
  return { faker, orgName, slug };
}
