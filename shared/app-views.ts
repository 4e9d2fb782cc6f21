/**
 * The app's views, once: the page's routes and tabs, the desktop menu's View items (with their
 * Ctrl+1… keys, in this order) and the shell's `show-view` command all name these. A view added here
 * is in all of them; TopBar and the menu show it under the same label.
 */
export const APP_VIEWS = ['queue', 'workstations', 'failures', 'timeline', 'ledger', 'settings'] as const;
export type AppView = (typeof APP_VIEWS)[number];

/** What the tab and the menu item call each view. */
export const APP_VIEW_LABEL: Readonly<Record<AppView, string>> = {
  queue: 'Queue',
  workstations: 'Workstations',
  failures: 'Failures',
  timeline: 'Timeline',
  ledger: 'Ledger',
  settings: 'Settings',
};

export function isAppView(v: unknown): v is AppView {
  return typeof v === 'string' && (APP_VIEWS as readonly string[]).includes(v);
}
