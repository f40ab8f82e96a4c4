import { useEffect, useState } from 'preact/hooks';
import type { CookieSessionResponse, UserJson } from '@gateway/edge/contract';
import { ApiError } from './api/errors';
import { needsSession } from './api/http';
import { currentUser, refreshSession, signIn, signOut } from './api/identity';

/**
 * The signed-in state of the page. The tokens themselves are in HttpOnly
 * cookies the page cannot read; what it keeps is who signed in and when the
 * access token runs out, so that it refreshes a minute before (access tokens
 * last 15 minutes) and again after the computer wakes from sleep.
 */
export type SessionState =
  | { status: 'loading' }
  | { status: 'signed-out'; notice?: string }
  | { status: 'signed-in'; user: UserJson };

let state: SessionState = { status: 'loading' };
const listeners = new Set<(next: SessionState) => void>();
let refreshTimer: number | undefined;
let expiresAt = 0;
let inFlight: Promise<boolean> | undefined;

/** Refresh this long before the access token expires. */
const REFRESH_LEAD_MS = 60_000;
/** All tabs of this origin share the refresh cookie; one refresh at a time, or a rotated token would look reused. */
const REFRESH_LOCK = 'service-console-refresh';

function publish(next: SessionState): void {
  state = next;
  for (const listener of listeners) listener(next);
}

function scheduleRefresh(expiresInSeconds: number): void {
  window.clearTimeout(refreshTimer);
  expiresAt = Date.now() + expiresInSeconds * 1000;
  const lead = Math.min(REFRESH_LEAD_MS, (expiresInSeconds * 1000) / 5);
  refreshTimer = window.setTimeout(() => void refresh(), Math.max(0, expiresAt - lead - Date.now()));
}

function opened(session: CookieSessionResponse): void {
  scheduleRefresh(session.expires_in);
  publish({ status: 'signed-in', user: session.user });
}

function ended(notice?: string): void {
  window.clearTimeout(refreshTimer);
  expiresAt = 0;
  publish(notice === undefined ? { status: 'signed-out' } : { status: 'signed-out', notice });
}

async function rotate(): Promise<CookieSessionResponse> {
  return navigator.locks ? navigator.locks.request(REFRESH_LOCK, () => refreshSession()) : refreshSession();
}

/**
 * Renews the session; false when it cannot be renewed (the refresh token
 * expired, was revoked, or was never set), which ends it. Concurrent
 * callers share one refresh.
 */
export function refresh(): Promise<boolean> {
  inFlight ??= rotate()
    .then((session) => {
      opened(session);
      return true;
    })
    .catch((error: unknown) => {
      if (error instanceof ApiError && error.status !== 0 && error.status < 500) {
        ended('Your session has ended. Sign in again.');
        return false;
      }
      // The server could not be reached: keep the state and try again shortly.
      scheduleRefresh(30);
      return false;
    })
    .finally(() => {
      inFlight = undefined;
    });
  return inFlight;
}

/** On load: the refresh cookie, else a still valid access cookie, else the sign-in page. */
export async function boot(): Promise<void> {
  try {
    opened(await rotate());
    return;
  } catch {
    // No refresh cookie, or an ended session: an access cookie alone may still be valid.
  }
  try {
    publish({ status: 'signed-in', user: await currentUser() });
  } catch {
    ended();
  }
}

export async function signInWithPassword(email: string, password: string): Promise<void> {
  opened(await signIn({ email, password }));
}

export async function signOutNow(): Promise<void> {
  try {
    await signOut();
  } finally {
    ended();
  }
}

/** Re-reads the user (memberships change when an administrator adds one). */
export async function reloadUser(): Promise<void> {
  publish({ status: 'signed-in', user: await withSession(currentUser) });
}

/**
 * Runs a call that needs the session; a 401 (the access token ran out while
 * the computer slept, say) is retried once after a refresh.
 */
export async function withSession<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!needsSession(error) || !(await refresh())) throw error;
    return call();
  }
}

export function useSession(): SessionState {
  const [current, setCurrent] = useState(state);
  useEffect(() => {
    listeners.add(setCurrent);
    setCurrent(state);
    return () => void listeners.delete(setCurrent);
  }, []);
  return current;
}

// Timers do not run while a computer sleeps: check on waking.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible' && state.status === 'signed-in' && expiresAt > 0 && Date.now() > expiresAt - REFRESH_LEAD_MS) {
    void refresh();
  }
});
