import type { KeyJson, OrganizationAgentJson } from '@gateway/edge/contract';
import { formatDate, formatDateTime } from '../format';
import { boundToLabel } from './labels';

export interface KeyActions {
  onEdit: (key: KeyJson) => void;
  onRevoke: (key: KeyJson) => void;
}

const when = (iso: string | null, none: string) => (iso ? <time dateTime={iso}>{formatDateTime(iso)}</time> : <span class="muted">{none}</span>);

/** One list of keys: the active ones (with actions, when the user may change them) or the revoked ones. */
export function KeyTable({
  caption,
  keys,
  agents,
  revoked,
  actions,
}: {
  caption: string;
  keys: KeyJson[];
  agents: Map<string, OrganizationAgentJson>;
  revoked?: boolean;
  actions?: KeyActions | undefined;
}) {
  return (
    <div class="table-wrap">
      <table class="table">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Scopes</th>
            <th scope="col">Bound to</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">{revoked ? 'Revoked' : 'Expires'}</th>
            {actions ? (
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key.id} data-key-id={key.id}>
              <th scope="row" class="key-name">
                {key.name}
                {key.status === 'expired' ? <span class="badge badge-warning">Expired</span> : null}
              </th>
              <td>
                <code class="prefix">{key.prefix}</code>
              </td>
              <td>
                <ul class="chips" aria-label={`Scopes of ${key.name}`}>
                  {key.scopes.map((scope) => (
                    <li key={scope} class="chip">
                      {scope}
                    </li>
                  ))}
                </ul>
              </td>
              <td>{boundToLabel(key.bound_to, agents)}</td>
              <td>
                <time dateTime={key.created_at}>{formatDate(key.created_at)}</time>
              </td>
              <td>{when(key.last_used_at, 'Never')}</td>
              <td>{revoked ? when(key.revoked_at, '') : when(key.expires_at, 'Never')}</td>
              {actions ? (
                <td class="row-actions">
                  <button type="button" class="button button-small" aria-label={`Edit ${key.name}`} onClick={() => actions.onEdit(key)}>
                    Edit
                  </button>
                  <button type="button" class="button button-small button-danger-quiet" aria-label={`Revoke ${key.name}`} onClick={() => actions.onRevoke(key)}>
                    Revoke
                  </button>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
