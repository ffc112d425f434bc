/**
 * A modal confirmation (the native <dialog>, so focus is trapped and Escape cancels) that says what
 * will happen before a change that cannot be undone (revoking a key, stopping an experiment).
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  /** What happens if confirmed, in plain words. */
  children: ComponentChildren;
  /** The confirm button's name, e.g. "Revoke" or "Stop". */
  confirmLabel: string;
  /** Disables the buttons while the change is under way. */
  busy?: boolean;
  /** An error from the attempted change, shown in the dialog. */
  error?: string | null;
  onConfirm: () => void;
  onCancel: () => void;
}

export function ConfirmDialog({ open, title, children, confirmLabel, busy, error, onConfirm, onCancel }: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      class="confirm"
      aria-labelledby="confirm-title"
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) onCancel();
      }}
    >
      {open && (
        <>
          <h2 id="confirm-title">{title}</h2>
          <div class="confirm-body">{children}</div>
          {error && (
            <p class="error" role="alert">
              {error}
            </p>
          )}
          <div class="actions">
            <button type="button" class="secondary" disabled={busy} onClick={onCancel}>
              Cancel
            </button>
            <button type="button" class="danger" disabled={busy} onClick={onConfirm}>
              {confirmLabel}
            </button>
          </div>
        </>
      )}
    </dialog>
  );
}
