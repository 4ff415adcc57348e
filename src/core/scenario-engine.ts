import { platform } from '../model/platform.js';

/** The scenario engine's module. */
export type ScenarioEngine = typeof import('../scenarios/index.js');

/**
 * The scenario engine, loaded by the platform on first use (a sandbox that plays no scenario
 * never pays for it or for YAML); undefined in the browser build, whose built-ins would be files.
 */
export function loadScenarioEngine(): Promise<ScenarioEngine> | undefined {
  return platform().loadScenarios?.() as Promise<ScenarioEngine> | undefined;
}
