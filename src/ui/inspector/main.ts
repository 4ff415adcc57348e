/*
 * The inspector at /sandbox/ui. It sees only one API token's connections, through the sandbox's
 * own API: the service's endpoints, the control API and the inspector routes. The token comes
 * from `?token=` (then taken out of the address), this tab's sessionStorage, or, on a loopback
 * address, the default key when the server accepts it; else a form asks for it once. It polls
 * once a second and redraws only what changed, so forms keep their input and focus.
 *
 * The build bundles this entry and the modules it imports into dist/ui/inspector.js, one script
 * the page loads after dom.js (scripts/build-ui.mjs).
 */
import { clientCheckView } from './client-check.js';
import { connectionsView } from './connections.js';
import { forget } from './page.js';
import { journalView } from './scenarios.js';
import { addView, boot, signOut } from './session.js';
import { wireTabs } from './tabs.js';

addView('connections', connectionsView);
addView('scenarios', journalView);
addView('requests', journalView);
addView('client-check', clientCheckView);

forget.addEventListener('click', () => {
  signOut();
});
wireTabs();
boot();
