import type { Faker, Randomizer } from '@faker-js/faker';
import * as z from 'zod';
import type { FakerModule } from '../../model/platform.js';
import { once } from '../../shared/once.js';
import type { Random } from '../../shared/random.js';
import { companyDomain } from './fake-fields.js';

// Faker is a large module: each function takes it from the caller, who has it from the sandbox's
// platform (`platform.loadFaker()`), loaded on the first connection, not when the sandbox or
// `serve` starts (Node loads it lazily; the browser entry has it bundled).

/** Where a seeded faker stands: its seed and how many values it has drawn since. */
export const fakerStateSchema = once(() => z.object({ seed: z.number().int().nonnegative(), draws: z.number().int().nonnegative() }).strict());
export type FakerState = z.infer<ReturnType<typeof fakerStateSchema>>;

/**
 * faker's own default randomizer (Mersenne Twister, 53 bits), counting its draws: a faker's
 * position is then two numbers, and a snapshot can continue it exactly (re-seed, skip `draws`).
 */
class CountingRandomizer implements Randomizer {
  private readonly inner: Randomizer;
  seedValue = 0;
  draws = 0;

  constructor(fakerModule: FakerModule) {
    this.inner = fakerModule.generateMersenne53Randomizer();
  }

  // Arrow functions: faker calls `next` detached from its object.
  next = (): number => {
    this.draws++;
    return this.inner.next();
  };

  seed = (seed: number | number[]): void => {
    this.seedValue = typeof seed === 'number' ? seed : (seed[0] ?? 0);
    this.draws = 0;
    this.inner.seed(seed);
  };
}

const randomizers = new WeakMap<Faker, CountingRandomizer>();

/**
 * An English faker seeded with `seed`: the same values as `new Faker({ locale: [en, base] })`
 * seeded the same way, but its position can be saved with {@link fakerState}.
 *
 * @example const faker = seededFaker(platform.loadFaker(), random.fork('write-values').uint32());
 */
export function seededFaker(fakerModule: FakerModule, seed: number): Faker {
  const { Faker: FakerClass, en, base } = fakerModule;
  const randomizer = new CountingRandomizer(fakerModule);
  const faker = new FakerClass({ locale: [en, base], randomizer });
  faker.seed(seed);
  randomizers.set(faker, randomizer);
  return faker;
}

/** The position of a faker made by {@link seededFaker}. */
export function fakerState(faker: Faker): FakerState {
  const randomizer = randomizers.get(faker);
  if (!randomizer) throw new Error('fakerState() needs a faker made by seededFaker()');
  return { seed: randomizer.seedValue, draws: randomizer.draws };
}

/** A faker (made from `fakerModule`) that continues exactly where `state` was taken. */
export function restoreFaker(fakerModule: FakerModule, state: FakerState): Faker {
  const faker = seededFaker(fakerModule, state.seed);
  const randomizer = randomizers.get(faker)!;
  for (let i = 0; i < state.draws; i++) randomizer.next();
  return faker;
}

/**
 * A connection's org, drawn from its `seed` stream, and that stream's Faker just after the
 * draw. The Faker is not kept with the connection (it costs memory per connection): the data
 * set rebuilds it with this same call, so its seed data is the same as if it had been kept.
 *
 * @example const { faker, orgName, slug } = orgFaker(platform.loadFaker(), connection.random);
 */
export function orgFaker(fakerModule: FakerModule, connectionRandom: Random): { faker: Faker; orgName: string; slug: string } {
  const faker = seededFaker(fakerModule, connectionRandom.fork('seed').uint32());
  const orgName = faker.company.name();
  const slug = companyDomain(faker, orgName).replace(/\.com$/, '');
  return { faker, orgName, slug };
}
