/**
 * A form's save: the form is busy while it sends, closes when the engine took it, and otherwise
 * shows the refusal in the form's own words (lib/plain-error.ts: `fields` names each input), never
 * an API method name. `error` is also the form's own check's line, set before anything is sent.
 */
import { useState } from 'react';
import { errorMessage } from '../client/client.js';
import { plainError } from '../lib/plain-error.js';

export function useFormSave(fields: Record<string, string>, onClose: () => void) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const save = async (send: () => Promise<void>): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await send();
      onClose();
    } catch (err) {
      setError(plainError(errorMessage(err), fields));
      setBusy(false);
    }
  };
  return { error, setError, busy, save };
}
