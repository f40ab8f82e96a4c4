import { useState } from 'preact/hooks';
import { asApiError, type ApiError } from '../api/errors';
import { ErrorNotice } from '../components/ErrorNotice';
import { signInWithPassword } from '../session';

/** Email and password; the session then lives in HttpOnly cookies the page never reads. */
export function SignIn({ notice }: { notice?: string | undefined }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await signInWithPassword(email.trim(), password);
    } catch (failure) {
      setError(asApiError(failure));
      setBusy(false);
    }
  };

  return (
    <main class="sign-in">
      <form class="panel sign-in-panel" onSubmit={submit} aria-labelledby="sign-in-title">
        <div class="brand brand-large" aria-hidden="true">
          <span class="brand-mark" />
          Gateway Console
        </div>
        <h1 id="sign-in-title">Sign in</h1>
        {notice ? (
          <p class="notice notice-info" role="status">
            {notice}
          </p>
        ) : null}
        {error ? <ErrorNotice error={error} title="Could not sign in" /> : null}
        <label class="field">
          <span class="field-label">Email</span>
          <input type="email" name="email" autocomplete="username" required autofocus value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
        </label>
        <label class="field">
          <span class="field-label">Password</span>
          <input
            type="password"
            name="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(event) => setPassword(event.currentTarget.value)}
          />
        </label>
        <button type="submit" class="button button-primary button-block" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
