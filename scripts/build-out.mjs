// Where a build step writes what a running CLI loads from dist/ (cli-bundle/, vendor/, ui/): `npm run build`
// (scripts/build.mjs) points CRM_SANDBOX_BUILD_OUT at a staging folder beside dist/ and publishes it into dist/
// at the end, so a running `serve` never finds them half-written; a step run alone writes into dist/ itself.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The path of `path` in the build's output (the staging folder, or dist/). */
export const buildOut = (path = '') => join(process.env.CRM_SANDBOX_BUILD_OUT || join(root, 'dist'), path);
