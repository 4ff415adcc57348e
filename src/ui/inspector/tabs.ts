import { redrawAll, state, type Tab } from './page.js';
import { layout, refresh } from './session.js';

/** The view tabs, in their order in the page: arrow keys move between them. */
const TAB_NAMES: Tab[] = ['connections', 'scenarios', 'requests', 'client-check'];

function selectTab(name: Tab): void {
  state.tab = name;
  for (const other of TAB_NAMES) {
    const tab = document.getElementById(`tab-${other}`)!;
    tab.setAttribute('aria-selected', String(other === name));
    tab.tabIndex = other === name ? 0 : -1;
  }
  redrawAll();
  layout();
  refresh();
}

/** Makes the page's tab buttons switch views, by click and by the arrow keys. */
export function wireTabs(): void {
  TAB_NAMES.forEach((name, index) => {
    const tab = document.getElementById(`tab-${name}`)!;
    tab.addEventListener('click', () => {
      selectTab(name);
    });
    tab.addEventListener('keydown', (event) => {
      const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
      if (!step) return;
      const next = TAB_NAMES[(index + step + TAB_NAMES.length) % TAB_NAMES.length]!;
      selectTab(next);
      document.getElementById(`tab-${next}`)!.focus();
    });
  });
}
