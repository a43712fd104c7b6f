import type { Context } from 'hono';
import { collect, type Registered, type RegisteringPayload } from '../../application/collect/index.ts';
import type { ObligationTerms } from '../../domain/collect/payloads.ts';
import { formatExpTime } from '../../domain/epay-time.ts';
import type { AppEnv } from '../shared/context.ts';
import { protocolHandler, requestParams, textAnswer } from './protocol.ts';

/**
 * The HTTP side of the registering operations: authenticate and register (use cases), answered as
 * `IDN`, `STATUS`, `EXP_TIME` text.
 */

/** The answer of a registration: `IDN`, `STATUS`, `EXP_TIME` (Sofia time) and any extra lines. */
export function registrationAnswer(
  c: Context<AppEnv>,
  { obligation, replayed }: Registered,
  extra: Record<string, string | undefined> = {},
): Response {
  return textAnswer(
    c,
    {
      IDN: obligation.idn,
      ...extra,
      STATUS: obligation.status,
      EXP_TIME: formatExpTime(obligation.expiresAt),
    },
    200,
    replayed ? { 'idempotent-replayed': 'true' } : {},
  );
}

/** What one registering operation adds to the shared steps: its payload, kind, expiry, details and answer. */
export interface RegisteringOperation<Terms extends ObligationTerms> extends RegisteringPayload<Terms> {
  /** The answer; default `IDN`, `STATUS`, `EXP_TIME` (registrationAnswer). */
  answer?: (c: Context<AppEnv>, registered: Registered) => Response;
}

/**
 * The handler of an operation that registers an obligation from its packet: authenticate, parse the
 * payload, register once, answer. Protocol errors are answered as `ERR=` text.
 */
export function registrationHandler<Terms extends ObligationTerms>(operation: RegisteringOperation<Terms>) {
  return protocolHandler(async (c) => {
    const registered = await collect.registerPacket(c.get('deps'), {
      params: await requestParams(c),
      operation,
    });
    return (operation.answer ?? registrationAnswer)(c, registered);
  });
}
