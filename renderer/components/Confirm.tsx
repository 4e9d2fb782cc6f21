/**
 * "Are you sure?" in words that say what will happen. Cancel has the focus, as in ConfirmDialog:
 * a stray Enter disables, drains or approves nothing. Esc cancels.
 */
import { useEffect, useRef, type ReactNode } from 'react';
import { Modal } from './Modal.js';

export function Confirm({
  title,
  children,
  confirmLabel,
  danger,
  onConfirm,
  onCancel,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const back = useRef<HTMLButtonElement>(null);
  useEffect(() => back.current?.focus(), []);
  return (
    <Modal
      title={title}
      onClose={onCancel}
      footer={
        <>
          <span className="spacer" />
          <button type="button" ref={back} className="btn btn-ghost" onClick={onCancel} data-testid="confirm-cancel">
            Cancel
          </button>
          <button
            type="button"
            className={`btn ${danger ? 'btn-danger' : 'btn-primary'}`}
            onClick={onConfirm}
            data-testid="confirm-ok"
          >
            {confirmLabel}
          </button>
        </>
      }
    >
      <div className="confirm-body" data-testid="confirm">
        {children}
      </div>
    </Modal>
  );
}
