import { useState } from 'preact/hooks';
import type { KeyJson } from '@gateway/edge/contract';
import { revokeKey } from '../api/console';
import { asApiError, type ApiError } from '../api/errors';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';

/** Revoking asks first: it ends access at once and cannot be undone (docs/api.md#api-keys). */
export function RevokeKeyDialog({ org, apiKey, onRevoked, onClose }: { org: string; apiKey: KeyJson; onRevoked: () => void; onClose: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);

  const revoke = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await revokeKey(org, apiKey.id);
      onRevoked();
    } catch (failure) {
      setError(asApiError(failure));
      setBusy(false);
    }
  };

  return (
    <Dialog title={`Revoke “${apiKey.name}”?`} onClose={onClose}>
      <div class="dialog-body">
        {error ? <ErrorNotice error={error} title="The key was not revoked" /> : null}
        <p>
          Every request with the key <code>{apiKey.prefix}…</code> will be refused from now on. This cannot be undone; the key stays listed under
          “Revoked”.
        </p>
        <div class="dialog-actions">
          <button type="button" class="button" autofocus onClick={onClose}>
            Cancel
          </button>
          <button type="button" class="button button-danger" disabled={busy} onClick={() => void revoke()}>
            {busy ? 'Revoking…' : 'Revoke key'}
          </button>
        </div>
      </div>
    </Dialog>
  );
}
