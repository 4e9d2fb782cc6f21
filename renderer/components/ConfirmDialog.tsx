/**
 * The question a risky action asks first (lib/bulk-policy.ts): what will happen, the renders it
 * would interrupt, and two buttons. The safe one has the focus, so a stray Enter changes nothing.
 */
import { useEffect, useRef } from 'react';
import { useApp } from '../store/app-store.js';
import { Modal } from './Modal.js';

export function ConfirmDialog() {
  const c = useApp((s) => s.confirm);
  const answer = useApp((s) => s.answer);
  const back = useRef<HTMLButtonElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: each new question moves the focus to Go back, so a stray Enter goes back.
  useEffect(() => back.current?.focus(), [c]);
  if (!c) return null;
  return (
    <Modal
      title={c.title}
      onClose={() => answer(false)}
      footer={
        <>
          <span className="spacer" />
          <button type="button" className="btn" ref={back} onClick={() => answer(false)} data-testid="confirm-no">
            Go back
          </button>
          <button
            type="button"
            className={`btn ${c.danger ? 'btn-danger' : 'btn-primary'}`}
            onClick={() => answer(true)}
            data-testid="confirm-yes"
          >
            {c.confirmLabel}
          </button>
        </>
      }
    >
      <div className="confirm" data-testid="confirm-dialog">
        <p className="confirm-summary" data-testid="confirm-summary">
          {c.summary}
        </p>
        {c.details.length > 0 && (
          <ul className="confirm-details">
            {/* A line ending in ":" heads the lines after it. */}
            {c.details.map((d, i) => (
              <li key={i} className={d.endsWith(':') ? 'confirm-head' : undefined}>
                {d}
              </li>
            ))}
          </ul>
        )}
      </div>
    </Modal>
  );
}
