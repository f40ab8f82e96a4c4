/**
 * The instant by which a Record must be committed (its XADD), or null when
 * the caller set neither a commit window nor a deadline.
 *
 * A caller that sends `commit_within_ms` waits for the answer past that
 * window (edge: RECORD_DEADLINE_MS plus RECORD_ANSWER_GRACE_MS), so whatever
 * Record answers is what happened: the commit may use the window, measured
 * from the call's receipt here, and the answer's way back (the reply, the
 * network, a busy event loop on either side) has the caller's grace.
 *
 * A caller that only sets a deadline stops waiting at it and then says
 * `x-service-metered: false`; a record committed after that would be charged
 * while its answer said it was not. So the commit may use only the first
 * half of the time the call had left when it arrived, the second half being
 * for the answer's way back. This bound holds for a window too, so a call
 * that reached the ledger late is not committed after its caller gave up.
 * The deadline grpc-js gives is relative to the call's arrival, so the
 * caller's clock and this one need not agree.
 */
export function commitDeadline(callDeadline: Date | number, receivedAtMs: number, commitWithinMs = 0): number | null {
  const deadlineMs = callDeadline instanceof Date ? callDeadline.getTime() : callDeadline;
  const byDeadline = Number.isFinite(deadlineMs) ? Math.floor(receivedAtMs + Math.max(0, deadlineMs - receivedAtMs) / 2) : null;
  const byWindow = commitWithinMs > 0 ? receivedAtMs + commitWithinMs : null;
  if (byWindow === null) return byDeadline;
  return byDeadline === null ? byWindow : Math.min(byWindow, byDeadline);
}
