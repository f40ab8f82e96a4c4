import { useEffect, useState } from 'preact/hooks';

/** The Console's few pages, as paths under /console (the History API; edge serves the app for every one of them). */
export const BASE = '/console';

export type Route =
  | { page: 'home' }
  | { page: 'keys'; org: string }
  | { page: 'usage'; org: string; search: URLSearchParams }
  | { page: 'not-found'; path: string };

export function parseRoute(pathname: string, search: string): Route {
  const path = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  if (path === '' || path === '/') return { page: 'home' };
  const match = /^\/orgs\/([^/]+)\/(keys|usage)\/?$/.exec(path);
  if (!match?.[1]) return { page: 'not-found', path: pathname };
  const org = decodeURIComponent(match[1]);
  return match[2] === 'keys' ? { page: 'keys', org } : { page: 'usage', org, search: new URLSearchParams(search) };
}

export const keysHref = (org: string) => `${BASE}/orgs/${encodeURIComponent(org)}/keys`;
export const usageHref = (org: string, search?: URLSearchParams) =>
  `${BASE}/orgs/${encodeURIComponent(org)}/usage${search && search.size > 0 ? `?${search.toString()}` : ''}`;

const listeners = new Set<() => void>();

export function navigate(href: string, options: { replace?: boolean } = {}): void {
  if (href === `${location.pathname}${location.search}`) return;
  if (options.replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  for (const listener of listeners) listener();
}

export function useRoute(): Route {
  const read = () => parseRoute(location.pathname, location.search);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const update = () => setRoute(read());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return route;
}

/** A same-page link: navigates without a reload, and still opens in a new tab when asked to. */
export function followLink(event: MouseEvent, href: string): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(href);
}
