/**
 * A modal confirmation (the native <dialog>: focus moves into it, Escape cancels) that says what an
 * action will do before it is done.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

export interface ConfirmActionProps {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
}

export function ConfirmAction({ open, title, children, confirmLabel, onConfirm, onCancel }: ConfirmActionProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (open && !el.open) el.showModal();
    if (!open && el.open) el.close();
  }, [open]);
  return (
    <dialog ref={dialog} class="confirm-action" aria-labelledby={titleId} onCancel={onCancel} onClose={() => open && onCancel()}>
      <h2 id={titleId}>{title}</h2>
      {children}
      <div class="confirm-action-buttons">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" class="primary" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
