import { useState } from 'preact/hooks';
import type { CreatedKey } from '@gateway/edge/contract';

/** The secret of a key just created, with a copy button and a plain warning: it is never shown again. */
export function SecretView({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | undefined>(undefined);
  const copy = () =>
    navigator.clipboard.writeText(created.secret).then(
      () => setCopied('yes'),
      () => setCopied('failed'),
    );

  return (
    <div class="dialog-body">
      <div class="notice notice-warning" role="alert">
        <p class="notice-title">Copy this key now. It will not be shown again.</p>
        <p class="notice-message">
          Only a hash of it is stored, so nobody can show it to you later. Anyone who has it can call the gateway as your organization: keep it in
          a secret store, never in code. If it is lost, create another key and revoke this one.
        </p>
      </div>
      <label class="field">
        <span class="field-label">API key “{created.key.name}”</span>
        <input type="text" class="secret" readOnly value={created.secret} autofocus spellcheck={false} autocomplete="off" onFocus={(event) => event.currentTarget.select()} />
      </label>
      <p class="status-line" role="status">
        {copied === 'yes' ? 'Copied to the clipboard.' : copied === 'failed' ? 'The browser did not allow copying: select the key and copy it yourself.' : ''}
      </p>
      <div class="dialog-actions">
        <button type="button" class="button" onClick={() => void copy()}>
          Copy key
        </button>
        <button type="button" class="button button-primary" onClick={onDone}>
          I have copied it
        </button>
      </div>
    </div>
  );
}
