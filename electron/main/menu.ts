/**
 * The application menu. Items only call the actions they are given: main.ts decides what "Stop
 * farm" or "Import…" do, so this stays a plain description (and is checked in Node). The farm's
 * state is durable: a pause or stop lasts across restarts until Resume.
 */
import type { MenuItemConstructorOptions } from 'electron';
import { APP_VIEWS, APP_VIEW_LABEL, type AppView } from '../../shared/app-views.js';

export interface MenuActions {
  importShotList(): void;
  stopFarm(): void;
  pauseFarm(): void;
  resumeFarm(): void;
  showView(view: AppView): void;
  openDataFolder(): void;
  about(): void;
  /** File → This Computer: work on this app's own engine (asks, then restarts the app). */
  useThisComputer(): void;
  /** File → Studio Farm…: the page asks for the farm's address and a personal token. */
  joinStudioFarm(): void;
}

export function menuTemplate(
  a: MenuActions,
  o: { platform: NodeJS.Platform; devTools: boolean },
): MenuItemConstructorOptions[] {
  const mac = o.platform === 'darwin';
  const view: MenuItemConstructorOptions[] = APP_VIEWS.map((v, i) => ({
    label: APP_VIEW_LABEL[v],
    accelerator: `CmdOrCtrl+${i + 1}`,
    click: () => a.showView(v),
  }));
  const template: MenuItemConstructorOptions[] = [
    ...(mac ? [{ role: 'appMenu' as const }] : []),
    {
      label: 'File',
      submenu: [
        { label: 'Import Shot List…', accelerator: 'CmdOrCtrl+O', click: () => a.importShotList() },
        { type: 'separator' },
        { label: 'Work on This Computer', click: () => a.useThisComputer() },
        { label: 'Join Studio Farm…', click: () => a.joinStudioFarm() },
        { type: 'separator' },
        mac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    {
      label: 'Farm',
      submenu: [
        { label: 'Pause Dispatch', click: () => a.pauseFarm() },
        { label: 'Stop Farm…', click: () => a.stopFarm() },
        { label: 'Resume Farm', click: () => a.resumeFarm() },
      ],
    },
    {
      label: 'View',
      submenu: [
        ...view,
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
        ...(o.devTools
          ? [{ type: 'separator' as const }, { role: 'reload' as const }, { role: 'toggleDevTools' as const }]
          : []),
      ],
    },
    { role: 'windowMenu' },
    {
      role: 'help',
      submenu: [
        { label: 'Show Data Folder', click: () => a.openDataFolder() },
        ...(mac ? [] : [{ label: 'About Shotfarm', click: () => a.about() }]),
      ],
    },
  ];
  return template;
}
