/** The shell: top bar and banners, the current view, the import drop zone, toasts and the confirmation dialog. */
import { useEffect } from 'react';
import { TopBar } from './features/topbar/TopBar.js';
import { QueueView } from './features/queue/QueueView.js';
import { WorkstationsView } from './features/workstations/WorkstationsView.js';
import { FailuresView } from './features/failures/FailuresView.js';
import { TimelineView } from './features/timeline/TimelineView.js';
import { LedgerView } from './features/ledger/LedgerView.js';
import { SettingsView } from './features/settings/SettingsView.js';
import { FirstRunGuide } from './features/import/FirstRunGuide.js';
import { ImportDropZone } from './features/import/ImportDropZone.js';
import { Toasts } from './features/topbar/Toasts.js';
import { ConfirmDialog } from './components/ConfirmDialog.js';
import { JoinStudioDialog } from './features/studio/JoinStudioDialog.js';
import { go, useView } from './lib/route.js';
import { useApp } from './store/app-store.js';
import { useQueueAddress } from './features/queue/use-queue-address.js';

export function App() {
  const view = useView();
  const shell = useApp((s) => s.client.shell);
  // The queue's filter lives in the address (reload, back, a link sent to a colleague).
  useQueueAddress();
  // The desktop menu's View items (and a notification's click) name the view to show.
  useEffect(() => shell?.onCommand((c) => c.command === 'show-view' && go(c.view)), [shell]);
  return (
    <ImportDropZone>
      <div className="app">
        <TopBar view={view} />
        <main className="main" data-view={view}>
          {view === 'queue' && <FirstRunGuide />}
          {view === 'queue' && <QueueView />}
          {view === 'workstations' && <WorkstationsView />}
          {view === 'failures' && <FailuresView />}
          {view === 'timeline' && <TimelineView />}
          {view === 'ledger' && <LedgerView />}
          {view === 'settings' && <SettingsView />}
        </main>
        <Toasts />
        <ConfirmDialog />
        <JoinStudioDialog />
      </div>
    </ImportDropZone>
  );
}
