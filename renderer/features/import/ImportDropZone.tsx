/**
 * Drop a shot list anywhere on the window (or pick one with the Import button): the file is read
 * here and handed to the preview dialog. Nothing is stored until the operator confirms.
 * In the desktop app the Import button (and File → Import Shot List…) opens the OS dialog through
 * the client's shell capability instead: it also gives the file's folder, for relative inputs.
 */
import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { errorMessage } from '../../client/client.js';
import { useApp } from '../../store/app-store.js';
import { ImportDialog } from './ImportDialog.js';
import { checkShotListText, readShotListFile, type ReadResult } from './read-file.js';
import { droppedFiles, pickedFromInput, sendInputs } from './send-inputs.js';
import { splitPicked, type PickedFile } from './split-picked.js';

const PickContext = createContext<() => void>(() => undefined);

export function useImportPicker(): () => void {
  return useContext(PickContext);
}

function hasFiles(e: DragEvent): boolean {
  return !!e.dataTransfer && Array.from(e.dataTransfer.types).includes('Files');
}

export function ImportDropZone({ children }: { children: ReactNode }) {
  const [dragging, setDragging] = useState(false);
  const [file, setFileState] = useState<{ read: ReadResult; n: number } | null>(null);
  const opened = useRef(0);
  // A new file (even while a preview is open) gets a fresh dialog, not the old one's state.
  const setFile = useCallback(
    (read: ReadResult | null) => setFileState(read ? { read, n: ++opened.current } : null),
    [],
  );
  const input = useRef<HTMLInputElement>(null);
  const depth = useRef(0);

  const client = useApp((s) => s.client);
  const shell = client.shell;
  const notify = useApp((s) => s.notify);

  // One file: the list alone. Several, or a folder: the list and its images, which a farm across
  // the network (the browser, the desktop in studio mode) is sent before the preview (send-inputs.ts).
  const take = useCallback(
    async (picked: PickedFile[]) => {
      if (picked.length === 0) return;
      const split = splitPicked(picked);
      if (!split.ok) return notify('error', split.message);
      const read = await readShotListFile(split.list.file);
      if (!read.ok || split.inputs.length === 0 || !client.uploadInput) return setFile(read);
      try {
        notify(
          'info',
          `Sending ${split.inputs.length} input file${split.inputs.length === 1 ? '' : 's'} with ${read.name}…`,
        );
        setFile({ ...read, uploads: await sendInputs(client, split.inputs) });
      } catch (err) {
        notify('error', errorMessage(err));
      }
    },
    [client, notify, setFile],
  );

  const pick = useCallback(() => {
    if (!shell) {
      input.current?.click();
      return;
    }
    shell.openShotList().then(
      (picked) => picked && setFile(checkShotListText(picked.fileName, picked.content, picked.baseDir)),
      (err: unknown) => notify('error', errorMessage(err)),
    );
  }, [shell, notify, setFile]);

  // File → Import Shot List… in the desktop menu: the same flow as the Import button.
  useEffect(() => shell?.onCommand((c) => c.command === 'import' && pick()), [shell, pick]);

  useEffect(() => {
    const over = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    };
    const enter = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      depth.current++;
      setDragging(true);
    };
    const leave = () => {
      depth.current = Math.max(0, depth.current - 1);
      if (depth.current === 0) setDragging(false);
    };
    const drop = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth.current = 0;
      setDragging(false);
      if (e.dataTransfer)
        void droppedFiles(e.dataTransfer).then(take, (err: unknown) => notify('error', errorMessage(err)));
    };
    window.addEventListener('dragover', over);
    window.addEventListener('dragenter', enter);
    window.addEventListener('dragleave', leave);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragover', over);
      window.removeEventListener('dragenter', enter);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('drop', drop);
    };
  }, [take, notify]);

  return (
    <PickContext.Provider value={pick}>
      {children}
      <input
        ref={input}
        type="file"
        accept=".json,.csv,.tsv,.txt,application/json,text/csv,image/*"
        multiple
        hidden
        data-testid="import-file"
        onChange={(e) => {
          void take(pickedFromInput(e.target.files));
          e.target.value = '';
        }}
      />
      {dragging && (
        <div className="dropzone" data-testid="dropzone">
          <div className="dropzone-card">
            <div className="dropzone-title">Drop the shot list (with its images, or its folder) to preview it</div>
            <div className="muted">
              JSON or CSV (Kitsu, ShotGrid, Shotfarm columns) — nothing is stored until you confirm.
            </div>
          </div>
        </div>
      )}
      {file && <ImportDialog key={file.n} file={file.read} onClose={() => setFile(null)} />}
    </PickContext.Provider>
  );
}
