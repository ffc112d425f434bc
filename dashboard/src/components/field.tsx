/**
 * A labelled form control with the API's message for it underneath (ApiError.forField), tied to the
 * control by aria-describedby and aria-invalid so a screen reader reads it with the field.
 */
import type { ComponentChildren } from 'preact';
import { cloneElement, isValidElement, type VNode } from 'preact';

export interface FieldProps {
  /** The control's id (the label's `for`). */
  id: string;
  label: string;
  /** Shown under the label before the control, e.g. "one per line". */
  hint?: string;
  /** The API's message for this field; when set the control is marked invalid. */
  error?: string;
  /** One control (input, select or textarea); it gets id, aria-describedby and aria-invalid. */
  children: ComponentChildren;
}

export function Field({ id, label, hint, error, children }: FieldProps) {
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  const control = isValidElement(children)
    ? cloneElement(children as VNode<Record<string, unknown>>, { id, 'aria-describedby': describedBy, 'aria-invalid': error ? 'true' : undefined })
    : children;
  return (
    <div class={error ? 'field field-invalid' : 'field'}>
      <label for={id}>{label}</label>
      {hint && (
        <p class="hint" id={hintId}>
          {hint}
        </p>
      )}
      {control}
      {error && (
        <p class="field-error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}
