/**
 * A modal confirmation that says what will happen before a change (starting or stopping an
 * experiment, revoking a key). The native <dialog>: focus moves into it (on Cancel) and is trapped
 * there, Escape cancels, and on closing focus returns to the control that opened it.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  /** What happens if confirmed, in plain words. */
  children: ComponentChildren;
  /** The confirm button's name, e.g. "Revoke" or "Yes, stop it". */
  confirmLabel: string;
  /** The cancel button's name. @default "Cancel" */
  cancelLabel?: string;
  /** "danger" (the default) for a change that cannot be undone, "primary" otherwise. */
  tone?: 'danger' | 'primary';
  /** Disables the buttons while the change is under way. */
  busy?: boolean;
  /** Disables the confirm button alone (e.g. until a typed confirmation matches). */
  confirmDisabled?: boolean;
  /** A wider dialog, for one that holds a form. */
  wide?: boolean;
  /** An error from the attempted change, shown in the dialog. */
  error?: string | null;
  onConfirm: () => void;
  onCancel: () => void;
}

export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  cancelLabel = 'Cancel',
  tone = 'danger',
  busy,
  confirmDisabled,
  wide,
  error,
  onConfirm,
  onCancel,
}: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      dialog.showModal();
    }
    if (!open && dialog.open) {
      dialog.close();
      // Back to the control that opened it, if it is still there (a revoked key's row is not).
      if (opener.current?.isConnected) opener.current.focus();
      opener.current = null;
    }
  }, [open]);
  return (
    <dialog
      ref={ref}
      class={wide ? 'confirm wide' : 'confirm'}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) onCancel();
      }}
    >
      {open && (
        <>
          <h2 id={titleId}>{title}</h2>
          <div class="confirm-body">{children}</div>
          {error && (
            <p class="error" role="alert">
              {error}
            </p>
          )}
          <div class="actions">
            <button type="button" class="secondary" disabled={busy} onClick={onCancel}>
              {cancelLabel}
            </button>
            <button type="button" class={tone} disabled={busy || confirmDisabled} onClick={onConfirm}>
              {confirmLabel}
            </button>
          </div>
        </>
      )}
    </dialog>
  );
}
