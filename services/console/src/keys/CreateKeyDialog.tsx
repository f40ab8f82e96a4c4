import { useState } from 'preact/hooks';
import type { CreateKeyBody, CreatedKey, OrganizationAgentJson } from '@gateway/edge/contract';
import { DEFAULT_SCOPES } from '@gateway/lib/scopes';
import { createKey } from '../api/console';
import { asApiError, type ApiError } from '../api/errors';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { agentLabel } from './labels';
import { ScopePicker } from './ScopePicker';
import { SecretView } from './SecretView';

/** docs/api.md#api-keys and #limits-and-allowances: the Console's expiry presets, a date of one's choosing, or none. */
const PRESETS = [
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: '365', label: 'One year' },
  { value: 'date', label: 'On a date' },
  { value: 'never', label: 'Never' },
] as const;
type Expiry = (typeof PRESETS)[number]['value'];

const DAY_MS = 86_400_000;
const isoDay = (moment: number) => new Date(moment).toISOString().slice(0, 10);

function expiryOf(expiry: Expiry, date: string): Partial<Pick<CreateKeyBody, 'expires_in_days' | 'expires_at'>> {
  if (expiry === 'never') return {};
  if (expiry === 'date') return { expires_at: `${date}T00:00:00Z` };
  return { expires_in_days: Number(expiry) };
}

/**
 * Creating a key: name, scopes, expiry and the agent record to bind it to;
 * then the secret, shown once. The secret lives only in this dialog's state:
 * closing the dialog drops it, and nothing writes it anywhere else.
 */
export function CreateKeyDialog({
  org,
  agents,
  onCreated,
  onClose,
}: {
  org: string;
  agents: OrganizationAgentJson[];
  onCreated: () => void;
  onClose: () => void;
}) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>([...DEFAULT_SCOPES]);
  const [expiry, setExpiry] = useState<Expiry>('90');
  const [date, setDate] = useState(() => isoDay(Date.now() + 180 * DAY_MS));
  const [agentId, setAgentId] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [created, setCreated] = useState<CreatedKey | undefined>(undefined);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (scopes.length === 0) return;
    setBusy(true);
    setError(undefined);
    try {
      setCreated(await createKey(org, { name: name.trim(), scopes, ...(agentId ? { agent_id: agentId } : {}), ...expiryOf(expiry, date) }));
      onCreated();
    } catch (failure) {
      setError(asApiError(failure));
    } finally {
      setBusy(false);
    }
  };

  if (created) {
    return (
      <Dialog title="Your new API key" onClose={onClose} wide>
        <SecretView created={created} onDone={onClose} />
      </Dialog>
    );
  }

  return (
    <Dialog title="Create an API key" description="A key belongs to the organization. Its secret is shown once, when it is created." onClose={onClose} wide>
      <form class="dialog-body" onSubmit={submit}>
        {error ? <ErrorNotice error={error} title="The key was not created" /> : null}
        <label class="field">
          <span class="field-label">Name</span>
          <input type="text" name="name" required maxLength={100} autofocus value={name} onInput={(event) => setName(event.currentTarget.value)} />
          <span class="field-help">Where the key is used, e.g. “billing service, production”.</span>
        </label>
        <ScopePicker chosen={scopes} onChange={setScopes} />
        <fieldset class="field">
          <legend class="field-label">Expires</legend>
          <div class="segmented">
            {PRESETS.map((preset) => (
              <label key={preset.value} class="segment">
                <input type="radio" name="expiry" value={preset.value} checked={expiry === preset.value} onChange={() => setExpiry(preset.value)} />
                <span>{preset.label}</span>
              </label>
            ))}
          </div>
          {expiry === 'date' ? (
            <label class="field field-inline">
              <span class="field-label">Expiry date (00:00 UTC)</span>
              <input
                type="date"
                name="expires_at"
                required
                min={isoDay(Date.now() + DAY_MS)}
                max={isoDay(Date.now() + 3650 * DAY_MS)}
                value={date}
                onInput={(event) => setDate(event.currentTarget.value)}
              />
            </label>
          ) : null}
        </fieldset>
        <label class="field">
          <span class="field-label">Bound to</span>
          <select name="agent" value={agentId} onChange={(event) => setAgentId(event.currentTarget.value)}>
            <option value="">Organization (no agent record)</option>
            {agents.map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agentLabel(agent)}
              </option>
            ))}
          </select>
          <span class="field-help">A key bound to an agent record uses its model, mode, plan and billing attribution.</span>
        </label>
        <div class="dialog-actions">
          <button type="button" class="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="button button-primary" disabled={busy || scopes.length === 0}>
            {busy ? 'Creating…' : 'Create key'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
