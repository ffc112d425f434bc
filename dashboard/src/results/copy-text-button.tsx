/** A button that copies a text to the clipboard and says so (politely, to screen readers too). */
import { useState } from 'preact/hooks';

/** Without the async clipboard API (or its permission): a selected, hidden textarea and the copy command. */
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

export function CopyTextButton({ text, label }: { text: string; label: string }) {
  const [status, setStatus] = useState('');
  return (
    <span class="copy-text">
      <button
        type="button"
        onClick={() => {
          const failed = () => setStatus(copyBySelection(text) ? 'Copied.' : 'Could not copy: select the text and copy it by hand.');
          if (!navigator.clipboard) return failed();
          navigator.clipboard.writeText(text).then(() => setStatus('Copied.'), failed);
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
