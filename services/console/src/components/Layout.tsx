import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { MembershipJson, UserJson } from '@gateway/edge/contract';
import { followLink, keysHref, navigate, usageHref } from '../router';
import { signOutNow } from '../session';

const ROLE_LABELS: Record<MembershipJson['role'], string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

/**
 * The frame of every signed-in page: the organization switcher, the pages,
 * who is signed in and the way out. A skip link leads keyboard users past it.
 */
export function Layout({
  user,
  membership,
  page,
  children,
}: {
  user: UserJson;
  membership: MembershipJson | undefined;
  page: 'keys' | 'usage' | 'none';
  children: ComponentChildren;
}) {
  const [signingOut, setSigningOut] = useState(false);
  const switchTo = (organizationId: string) => navigate(page === 'usage' ? usageHref(organizationId) : keysHref(organizationId));

  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <div class="topbar-inner">
          <div class="brand" aria-hidden="true">
            <span class="brand-mark" />
            Gateway Console
          </div>
          {membership && user.memberships.length > 1 ? (
            <label class="org-switcher">
              <span class="field-label">Organization</span>
              <select value={membership.organization_id} onChange={(event) => switchTo(event.currentTarget.value)}>
                {user.memberships.map((candidate) => (
                  <option key={candidate.organization_id} value={candidate.organization_id}>
                    {candidate.organization_name} ({ROLE_LABELS[candidate.role]})
                  </option>
                ))}
              </select>
            </label>
          ) : membership ? (
            <p class="org-name">
              {membership.organization_name} <span class="role-badge">{ROLE_LABELS[membership.role]}</span>
            </p>
          ) : null}
          {membership ? (
            <nav class="tabs" aria-label="Pages">
              <a href={keysHref(membership.organization_id)} aria-current={page === 'keys' ? 'page' : undefined} onClick={(event) => followLink(event, keysHref(membership.organization_id))}>
                API keys
              </a>
              <a href={usageHref(membership.organization_id)} aria-current={page === 'usage' ? 'page' : undefined} onClick={(event) => followLink(event, usageHref(membership.organization_id))}>
                Usage &amp; quota
              </a>
            </nav>
          ) : null}
          <div class="account">
            <span class="account-email">{user.email}</span>
            <button
              type="button"
              class="button button-quiet"
              disabled={signingOut}
              onClick={() => {
                setSigningOut(true);
                void signOutNow().finally(() => setSigningOut(false));
              }}
            >
              Sign out
            </button>
          </div>
        </div>
      </header>
      <main id="main" class="content" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
