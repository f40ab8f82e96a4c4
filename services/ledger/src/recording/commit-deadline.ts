/**
 * The instant by which a Record must be committed (its XADD), or null when
 * the caller set no deadline.
 *
 * The caller stops waiting at its deadline and then says `x-service-metered:
 * false`; a record committed after that would be charged while its answer
 * said it was not. So the commit may use only the first half of the time the
 * call had left when it arrived; the second half is for the answer's way
 * back (the reply, the network, a busy event loop on either side). The
 * deadline grpc-js gives is relative to the call's arrival, so the caller's
 * clock and this one need not agree.
 */
export function commitDeadline(callDeadline: Date | number, receivedAtMs: number): number | null {
  const deadlineMs = callDeadline instanceof Date ? callDeadline.getTime() : callDeadline;
  if (!Number.isFinite(deadlineMs)) return null;
  return Math.floor(receivedAtMs + Math.max(0, deadlineMs - receivedAtMs) / 2);
}
