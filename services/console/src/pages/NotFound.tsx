import { BASE } from '../router';

export function NotFound({ what = 'page' }: { what?: 'page' | 'organization' }) {
  return (
    <section class="panel empty">
      <h1>{what === 'page' ? 'Page not found' : 'Organization not found'}</h1>
      <p>
        {what === 'page'
          ? 'There is no Console page at this address.'
          : 'You are not a member of this organization, or it does not exist.'}{' '}
        <a href={`${BASE}/`}>Go to the Console’s start</a>.
      </p>
    </section>
  );
}
