import { useState } from 'preact/hooks';
import type { KeyJson, UpdateKeyBody } from '@gateway/edge/contract';
import { updateKey } from '../api/console';
import { asApiError, type ApiError } from '../api/errors';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { ScopePicker } from './ScopePicker';

/** Renaming a key and changing its scopes; the secret stays the same (docs/api.md#api-keys). */
export function EditKeyDialog({ org, apiKey, onSaved, onClose }: { org: string; apiKey: KeyJson; onSaved: () => void; onClose: () => void }) {
  const [name, setName] = useState(apiKey.name);
  const [scopes, setScopes] = useState<string[]>(apiKey.scopes);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);

  const change: UpdateKeyBody = {
    ...(name.trim() !== apiKey.name ? { name: name.trim() } : {}),
    ...(scopes.join(',') !== apiKey.scopes.join(',') ? { scopes } : {}),
  };
  const unchanged = change.name === undefined && change.scopes === undefined;

  const submit = async (event: Event) => {
    event.preventDefault();
    if (unchanged || scopes.length === 0) return;
    setBusy(true);
    setError(undefined);
    try {
      await updateKey(org, apiKey.id, change);
      onSaved();
    } catch (failure) {
      setError(asApiError(failure));
      setBusy(false);
    }
  };

  return (
    <Dialog title={`Edit “${apiKey.name}”`} description="New scopes apply from the key's very next request. The secret does not change." onClose={onClose} wide>
      <form class="dialog-body" onSubmit={submit}>
        {error ? <ErrorNotice error={error} title="The key was not changed" /> : null}
        <label class="field">
          <span class="field-label">Name</span>
          <input type="text" name="name" required maxLength={100} autofocus value={name} onInput={(event) => setName(event.currentTarget.value)} />
        </label>
        <ScopePicker chosen={scopes} onChange={setScopes} />
        <div class="dialog-actions">
          <button type="button" class="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="button button-primary" disabled={busy || unchanged || scopes.length === 0}>
            {busy ? 'Saving…' : 'Save changes'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
