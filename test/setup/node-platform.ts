// Unit tests import core modules directly, not through an entry: give them Node's platform,
// as the `crm-sandbox` entry does.
import '../../src/node/platform.js';
