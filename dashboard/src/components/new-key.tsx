/** A key's value, shown once right after it is created, with a copy button and the warning that it is not shown again. */
import { useEffect, useRef } from 'preact/hooks';
import type { CreatedKey } from '../admin-types';
import { CopyButton } from './copy-button';

export function NewKeyPanel({ created, onDone }: { created: CreatedKey; onDone?: () => void }) {
  const panel = useRef<HTMLElement>(null);
  // Focus moves to the key, so a screen reader reads it and the warning at once.
  useEffect(() => panel.current?.focus(), [created.key]);
  return (
    <section class="new-key" aria-labelledby="new-key-title" tabIndex={-1} ref={panel}>
      <h2 id="new-key-title">Your new key</h2>
      <p>
        <strong>Copy it now: you will not see it again.</strong> Tally keeps only its hash; if you lose it, create another key and revoke this one.
      </p>
      <div class="copy-row">
        <code class="secret" aria-label="New key">
          {created.key}
        </code>
        <CopyButton text={created.key} label="Copy key" />
      </div>
      {onDone && (
        <button type="button" class="secondary" onClick={onDone}>
          I have saved it
        </button>
      )}
    </section>
  );
}
