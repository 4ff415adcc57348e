/** Attributes as dom.js takes them: `text` sets textContent, `on…` adds a listener, anything else is an attribute. */
type Attributes = Record<string, unknown>;
export type Child = Node | string | null | undefined | false;

interface Dom {
  el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attributes, children?: readonly Child[]): HTMLElementTagNameMap[K];
}

/**
 * The DOM builder of dom.js, which the page loads before the inspector: the link widget, a plain
 * script, uses the same file, so the inspector reads it from `window` instead of bundling a copy.
 */
export const { el } = (window as unknown as { CrmSandboxDom: Dom }).CrmSandboxDom;
