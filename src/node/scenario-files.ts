import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseScenario, type Scenario, ScenarioError } from '../scenarios/load.js';

// Node's scenario files (`ScenarioFiles` of src/scenarios/load.ts): the built-ins shipped with the
// package, and files by path. The Node platform loads them with the engine; the CLI imports them.

/** The built-in scenarios shipped with the package. */
const BUILT_IN_DIR = fileURLToPath(new URL('../../scenarios/', import.meta.url));
const EXTENSIONS = ['.yaml', '.yml', '.json'];
/** The JSON Schema of the format, beside the built-ins: not a scenario. */
const SCHEMA_FILE = 'scenario.schema.json';

let builtIns: Scenario[] | undefined;

/** The built-ins, checked, by name. They ship with the package: read and parsed once. */
function builtInScenarios(): Scenario[] {
  builtIns ??= existsSync(BUILT_IN_DIR)
    ? readdirSync(BUILT_IN_DIR)
        .filter((file) => EXTENSIONS.includes(extname(file)) && file !== SCHEMA_FILE)
        .sort()
        .map((file) => loadScenarioFile(join(BUILT_IN_DIR, file)))
    : [];
  return builtIns;
}

/** The built-ins: name and one-line description, by name. */
export function listBuiltIns(): Array<{ name: string; description: string; file: string }> {
  return builtInScenarios().map(({ name, description, source }) => ({ name, description, file: source }));
}

/** A built-in by name, or a file by path. */
export function findScenario(nameOrFile: string): Scenario {
  const builtIn = builtInScenarios().find((scenario) => scenario.name === nameOrFile);
  if (builtIn) return builtIn;
  if (existsSync(nameOrFile)) return loadScenarioFile(nameOrFile);
  const names = listBuiltIns().map((item) => item.name);
  throw new ScenarioError(`no scenario named "${nameOrFile}" and no such file; built-ins: ${names.join(', ')}`);
}

/** Reads and checks a scenario file (YAML or JSON). */
export function loadScenarioFile(path: string): Scenario {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw ScenarioError.of(path, [{ step: null, kind: null, field: '', message: `cannot read it: ${(error as Error).message}` }]);
  }
  return parseScenario(text, path);
}
