/** A button that copies a text to the clipboard and says so (politely, to screen readers too). */
import { useState } from 'preact/hooks';

export function CopyTextButton({ text, label }: { text: string; label: string }) {
  const [status, setStatus] = useState('');
  return (
    <span class="copy-text">
      <button
        type="button"
        onClick={() => {
          navigator.clipboard.writeText(text).then(
            () => setStatus('Copied.'),
            () => setStatus('Could not copy: select the text and copy it by hand.'),
          );
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
