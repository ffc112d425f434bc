/** A key's value, shown once right after it is created, with a copy button and the warning that it is not shown again. */
import type { CreatedKey } from '../admin-types';
import { CopyButton } from './copy-button';

export function NewKeyPanel({ created, onDone }: { created: CreatedKey; onDone?: () => void }) {
  return (
    <section class="new-key" aria-labelledby="new-key-title">
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
