import { Faker, base, en, generateMersenne53Randomizer, type Randomizer } from '@faker-js/faker';

/** Where a seeded faker stands: its seed and how many values it has drawn since. */
export interface FakerState {
  seed: number;
  draws: number;
}

/**
 * faker's own default randomizer (Mersenne Twister, 53 bits), counting its draws: a faker's
 * position is then two numbers, and a snapshot can continue it exactly (re-seed, skip `draws`).
 */
class CountingRandomizer implements Randomizer {
  private readonly inner = generateMersenne53Randomizer();
  seedValue = 0;
  draws = 0;

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
 * An English faker seeded with `seed`; the same values as `new Faker({ locale: [en, base] })`
 * seeded the same way, but its position can be saved with {@link fakerState}.
 *
 * @example const faker = seededFaker(42); faker.person.firstName();
 */
export function seededFaker(seed: number): Faker {
  const randomizer = new CountingRandomizer();
  const faker = new Faker({ locale: [en, base], randomizer });
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

/** A faker that continues exactly where `state` was taken. */
export function restoreFaker(state: FakerState): Faker {
  const faker = seededFaker(state.seed);
  const randomizer = randomizers.get(faker)!;
  for (let i = 0; i < state.draws; i++) randomizer.next();
  return faker;
}
