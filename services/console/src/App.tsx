import { useEffect } from 'preact/hooks';
import type { UserJson } from '@gateway/edge/contract';
import { Layout } from './components/Layout';
import { KeysPage } from './keys/KeysPage';
import { NotFound } from './pages/NotFound';
import { SignIn } from './pages/SignIn';
import { keysHref, navigate, useRoute, type Route } from './router';
import { useSession } from './session';
import { UsagePage } from './usage/UsagePage';

/** Routes a signed-in user to their page; anyone else to the sign-in form. */
export function App() {
  const session = useSession();
  const route = useRoute();

  if (session.status === 'loading') {
    return (
      <div class="splash" role="status">
        Loading…
      </div>
    );
  }
  if (session.status === 'signed-out') return <SignIn notice={session.notice} />;
  return <SignedIn user={session.user} route={route} />;
}

function SignedIn({ user, route }: { user: UserJson; route: Route }) {
  const first = user.memberships[0];
  useEffect(() => {
    if (route.page === 'home' && first) navigate(keysHref(first.organization_id), { replace: true });
  }, [route.page, first?.organization_id]);

  if (route.page === 'not-found') {
    return (
      <Layout user={user} membership={first} page="none">
        <NotFound />
      </Layout>
    );
  }
  if (route.page === 'home') {
    return (
      <Layout user={user} membership={first} page="none">
        {first ? null : <NoOrganization />}
      </Layout>
    );
  }
  const membership = user.memberships.find((candidate) => candidate.organization_id.toLowerCase() === route.org.toLowerCase());
  if (!membership) {
    return (
      <Layout user={user} membership={first} page="none">
        <NotFound what="organization" />
      </Layout>
    );
  }
  return (
    <Layout user={user} membership={membership} page={route.page}>
      {route.page === 'keys' ? <KeysPage membership={membership} /> : <UsagePage membership={membership} search={route.search} />}
    </Layout>
  );
}

function NoOrganization() {
  return (
    <section class="panel empty">
      <h1>No organization yet</h1>
      <p>You are not a member of any organization. An administrator adds members (npm run admin -- add-member).</p>
    </section>
  );
}
