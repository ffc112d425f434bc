/**
 * Copies a value to the clipboard and says so ("Copied."), politely to screen readers too; names what
 * it copies. Without the async clipboard API (or its permission) it falls back to a selection copy.
 */
import { useState } from 'preact/hooks';

/** A selected, hidden textarea and the copy command. */
function copyBySelection(text: string): boolean {
  const area = document.createElement('textarea');
  area.value = text;
  area.readOnly = true;
  area.className = 'visually-hidden';
  document.body.append(area);
  area.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  } finally {
    area.remove();
  }
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [status, setStatus] = useState('');
  return (
    <span class="copy">
      <button
        type="button"
        class="secondary"
        onClick={() => {
          const fallback = () => setStatus(copyBySelection(text) ? 'Copied.' : 'Could not copy: select the text and copy it by hand.');
          if (!navigator.clipboard) return fallback();
          navigator.clipboard.writeText(text).then(() => setStatus('Copied.'), fallback);
        }}
      >
        {label}
      </button>
      <span role="status" class="copy-status">
        {status}
      </span>
    </span>
  );
}
