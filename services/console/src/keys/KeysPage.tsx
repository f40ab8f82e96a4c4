import { useMemo, useState } from 'preact/hooks';
import type { KeyJson, MembershipJson } from '@gateway/edge/contract';
import { listAgents, listKeys } from '../api/console';
import { ErrorNotice } from '../components/ErrorNotice';
import { useLoad } from '../load';
import { CreateKeyDialog } from './CreateKeyDialog';
import { EditKeyDialog } from './EditKeyDialog';
import { KeyTable } from './KeyTable';
import { RevokeKeyDialog } from './RevokeKeyDialog';

/** Owners and admins change keys; members read them (docs/api.md#authentication). The API decides either way. */
const MANAGERS: ReadonlyArray<MembershipJson['role']> = ['owner', 'admin'];

type Open = { dialog: 'create' } | { dialog: 'edit'; key: KeyJson } | { dialog: 'revoke'; key: KeyJson } | undefined;

export function KeysPage({ membership }: { membership: MembershipJson }) {
  const org = membership.organization_id;
  const keys = useLoad(() => listKeys(org), [org]);
  const agents = useLoad(() => listAgents(org), [org]);
  const [open, setOpen] = useState<Open>(undefined);
  const canManage = MANAGERS.includes(membership.role);
  const agentsById = useMemo(() => new Map((agents.data?.agents ?? []).map((agent) => [agent.id, agent])), [agents.data]);
  const close = () => setOpen(undefined);
  const changed = () => {
    setOpen(undefined);
    keys.reload();
  };
  const actions = canManage ? { onEdit: (key: KeyJson) => setOpen({ dialog: 'edit', key }), onRevoke: (key: KeyJson) => setOpen({ dialog: 'revoke', key }) } : undefined;

  return (
    <>
      <div class="page-header">
        <div>
          <h1>API keys</h1>
          <p class="page-lede">Keys of {membership.organization_name} for the gateway and the usage API. The secret of a key is shown only when it is created.</p>
        </div>
        {canManage ? (
          <button type="button" class="button button-primary" onClick={() => setOpen({ dialog: 'create' })}>
            Create key
          </button>
        ) : null}
      </div>
      {canManage ? null : (
        <p class="notice notice-info">
          You are a member of {membership.organization_name}: you can see its keys. Owners and admins create, edit and revoke them.
        </p>
      )}
      {keys.error ? <ErrorNotice error={keys.error} title="Could not load the keys" /> : null}
      {agents.error ? <ErrorNotice error={agents.error} title="Could not load the agent records" /> : null}

      <section class="panel" aria-labelledby="active-keys">
        <h2 id="active-keys" class="panel-title">
          Active <span class="count">{keys.data ? keys.data.active.length : ''}</span>
        </h2>
        {keys.data === undefined ? (
          <p class="muted" role="status">
            {keys.loading ? 'Loading keys…' : ''}
          </p>
        ) : keys.data.active.length === 0 ? (
          <p class="empty-line">No active keys.{canManage ? ' Create one to call the gateway.' : ''}</p>
        ) : (
          <KeyTable caption="Active keys" keys={keys.data.active} agents={agentsById} actions={actions} />
        )}
      </section>

      <section class="panel" aria-labelledby="revoked-keys">
        <h2 id="revoked-keys" class="panel-title">
          Revoked <span class="count">{keys.data ? keys.data.revoked.length : ''}</span>
        </h2>
        {keys.data && keys.data.revoked.length > 0 ? (
          <KeyTable caption="Revoked keys" keys={keys.data.revoked} agents={agentsById} revoked />
        ) : keys.data ? (
          <p class="empty-line">No revoked keys.</p>
        ) : null}
      </section>

      {open?.dialog === 'create' ? <CreateKeyDialog org={org} agents={agents.data?.agents ?? []} onCreated={keys.reload} onClose={close} /> : null}
      {open?.dialog === 'edit' ? <EditKeyDialog org={org} apiKey={open.key} onSaved={changed} onClose={close} /> : null}
      {open?.dialog === 'revoke' ? <RevokeKeyDialog org={org} apiKey={open.key} onRevoked={changed} onClose={close} /> : null}
    </>
  );
}
