import { toDomainError } from '@gateway/lib/errors';
import type { Principal } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { requestIdOf } from '../http/locals';
import { sendJson, type PlainHandler, type PlainRequest, type PlainResponse } from '../http/plain';
import type { ProviderRequest } from '../provider';
import { admitCall, leaseUsage, quotaRefusal, worstCaseFor, type LeasedCall } from './admission';
import { priceCall, recordCall } from './backends';
import type { GatewayDeps } from './deps';
import { gatewayHeaders, writeGatewayHeaders, type HeaderFacts } from './headers';
import { authenticateGatewayCall, modeName, principalName, requireScope, subjectOf } from './principal';
import { providerKeyFor } from './provider-keys';
import { chatCompletionWriter } from './chat-output';
import type { AnswerWriter, GatewayEndpoint } from './output';
import { parseChatCompletionBody, type ChatCompletionBody } from './request';
import { routeFactsOf, routeRequestOf, upstreamBodyOf } from './routing';
import { routeCall } from './routing-policy';
import { streamCompletion } from './stream';
import { traceRecord, type CallSummary } from './trace-record';

/** POST /api/gateway/v1/chat/completions: the pipeline's own wire format, passed through. */
export const chatCompletionsEndpoint: GatewayEndpoint = {
  accept: (raw) => ({ body: parseChatCompletionBody(raw), writer: chatCompletionWriter }),
};

/**
 * The hot path of docs/decisions.md#the-gateway, for any endpoint that translates onto chat
 * completions: authenticate, route, admit by the call's worst-case cost, then
 * the provider, pricing and the ledger record. Facts are gathered as they
 * arrive and the header set is written once from them, at the answer or at
 * the error, so an error at any step still carries the whole truthful header set.
 */
export function gatewayPipeline(deps: GatewayDeps, endpoint: GatewayEndpoint): PlainHandler {
  return async (req, res) => {
    // A rejected credential is answered with the empty header set (gatewayErrorHeaders).
    const facts: HeaderFacts = { requestId: requestIdOf(res) };
    const principal = await authenticateGatewayCall(deps, req, res);
    facts.principal = principalName(principal);
    facts.mode = modeName(principal);
    await servePrincipal(deps, req, res, principal, facts, endpoint);
  };
}

/** A call that is in flight for an authenticated principal. */
export interface GatewayCall {
  deps: GatewayDeps;
  req: PlainRequest;
  res: PlainResponse;
  principal: Principal;
  facts: HeaderFacts;
  body: ChatCompletionBody;
  reservationId: string;
  /** The lease the call was admitted against, settled with its usage once it is recorded. */
  lease: LeasedCall | undefined;
  startedAt: Date;
  startedMs: number;
}

async function servePrincipal(
  deps: GatewayDeps,
  req: PlainRequest,
  res: PlainResponse,
  principal: Principal,
  facts: HeaderFacts,
  endpoint: GatewayEndpoint,
): Promise<void> {
  const startedAt = new Date();
  const startedMs = performance.now();
  let reservationId = '';
  let lease: LeasedCall | undefined;
  let requestedModel = '';
  let stream = false;
  try {
    requireScope(principal, 'inference');
    const { body, writer } = endpoint.accept(req.body);
    requestedModel = body.model;
    stream = body.stream === true;
    // Route first: the served model's prices bound what the call may cost, and that is what it holds.
    const routed = await routeCall(deps, routeRequestOf(body, principal));
    facts.route = routeFactsOf(routed);
    const upstreamBody = upstreamBodyOf(body, routed);
    // One catalog for the whole call, even if the file changes while it runs.
    const catalog = deps.settings.catalog.current();
    const worstCase = worstCaseFor(catalog.models, deps.priceList?.current(), routed.model, upstreamBody);
    const admitted = await admitCall(deps, catalog, subjectOf(principal), facts.requestId, worstCase);
    ({ reservationId, lease } = admitted);
    facts.quota = admitted.quota;
    if (admitted.refusedFor) throw quotaRefusal(admitted.quota, worstCase, admitted.refusedFor.retryAfterSeconds);

    const call: GatewayCall = { deps, req, res, principal, facts, body, reservationId, lease, startedAt, startedMs };
    const upstream: ProviderRequest = {
      provider: routed.provider,
      apiKey: providerKeyFor(deps.settings, catalog, principal, routed.provider),
      mode: modeName(principal),
      body: upstreamBody,
    };
    if (stream) await streamCompletion(call, upstream, writer);
    else await completeJson(call, upstream, writer);
  } catch (error) {
    const domain = toDomainError(error);
    if (!res.headersSent) {
      const outcome = await recordCall(
        deps.ledger,
        deps.logger,
        traceRecord(req, {
          requestId: facts.requestId,
          principal,
          reservationId,
          leaseId: lease?.leaseId ?? '',
          requestedModel,
          route: facts.route,
          httpStatus: domain.httpStatus,
          errorClass: domain.errorClass,
          startedAt,
          latencyMs: Math.round(performance.now() - startedMs),
          inputTokens: 0,
          outputTokens: 0,
          priced: false,
          costMicros: 0n,
          priceListVersion: '',
          stream,
          consumed: false,
        }),
        deps.settings.recordTiming,
        lease,
      );
      facts.metered = outcome.metered;
      // A refusal keeps the counters that refused it, which include what calls in flight hold.
      if (domain.errorClass !== 'quota') facts.quota = outcome.quota ?? facts.quota;
      writeGatewayHeaders(res, gatewayHeaders(facts));
    }
    throw error;
  } finally {
    // The call is over: a path that did not settle its lease (nothing reached the provider) used none of it.
    lease?.finish(0n);
  }
}

async function completeJson(call: GatewayCall, upstream: ProviderRequest, writer: AnswerWriter): Promise<void> {
  const answer = await call.deps.provider.complete(upstream);
  await settle(call, answer.usage ?? NO_USAGE, 200);
  answer.recordCost?.(call.facts.price);
  writeGatewayHeaders(call.res, gatewayHeaders(call.facts));
  sendJson(call.res, 200, writer.json(answer, call.facts));
}

/** An upstream that reports no usage is priced at zero tokens, and says so in the trace. */
export const NO_USAGE = { promptTokens: 0, completionTokens: 0 };

/** Prices the call and records it; fills the outcome facts. Shared by JSON and streamed responses. */
export async function settle(call: GatewayCall, usage: { promptTokens: number; completionTokens: number }, httpStatus: number, errorClass = ''): Promise<void> {
  const { deps, req, facts, body, principal } = call;
  const route = facts.route;
  const price = route
    ? await priceCall(deps.pricing, deps.priceList, deps.logger, {
        servedModel: route.model,
        requestedModel: body.model,
        planTier: principal.planTier,
        tier: route.tier,
        inputTokens: usage.promptTokens,
        outputTokens: usage.completionTokens,
      })
    : undefined;
  facts.price = price;
  const summary: CallSummary = {
    requestId: facts.requestId,
    principal,
    reservationId: call.reservationId,
    leaseId: call.lease?.leaseId ?? '',
    requestedModel: body.model,
    route,
    httpStatus,
    errorClass,
    startedAt: call.startedAt,
    latencyMs: Math.round(performance.now() - call.startedMs),
    inputTokens: usage.promptTokens,
    outputTokens: usage.completionTokens,
    priced: price?.priced ?? false,
    costMicros: price?.priced ? price.costMicros : 0n,
    priceListVersion: price?.priced ? price.priceListVersion : '',
    stream: body.stream === true,
    consumed: true,
  };
  const outcome = await recordCall(deps.ledger, deps.logger, traceRecord(req, summary), deps.settings.recordTiming, call.lease);
  call.lease?.finish(leaseUsage(call.lease.meter, summary));
  facts.metered = outcome.metered;
  facts.quota = outcome.quota ?? facts.quota;
}
