import type { Platform } from '../model/platform.js';
import type { ScenarioFiles } from '../scenarios/load.js';

/** The scenario engine's module, with the platform's scenario files (the built-ins, and paths). */
export type ScenarioEngine = typeof import('../scenarios/index.js') & ScenarioFiles;

/**
 * The scenario engine, loaded by `platform` on first use (a sandbox that plays no scenario
 * never pays for it or for YAML); undefined in the browser build, whose built-ins would be files.
 */
export function loadScenarioEngine(platform: Pick<Platform, 'loadScenarios'>): Promise<ScenarioEngine> | undefined {
  return platform.loadScenarios?.() as Promise<ScenarioEngine> | undefined;
}
