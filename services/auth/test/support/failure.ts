import { DomainError } from '@gateway/lib/errors';

/** The DomainError a call failed with; a call that succeeds, or fails otherwise, fails the test. */
export async function failureOf(call: Promise<unknown>): Promise<DomainError> {
  const outcome = await call.then(
    () => new Error('expected the call to fail'),
    (error: unknown) => error,
  );
  if (!(outcome instanceof DomainError)) throw outcome;
  return outcome;
}
