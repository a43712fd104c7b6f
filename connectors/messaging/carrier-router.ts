import {
  type CarrierSettings,
  carriersFor,
  DEFAULT_CARRIER,
  type Destination,
  type Route,
} from '../../domain/messaging/carrier-routes.ts';
import type { Logger } from '../../platform/logger.ts';
import {
  type CarrierSubmission,
  type CarrierSubmitResult,
  NotTakenError,
  type SmsCarrier,
} from './carriers.ts';

/**
 * Several SMS carriers behind the one SmsCarrier the activities use (decision 0079). Each submission
 * goes to the carriers of its destination's route in order (domain/messaging/carrier-routes.ts): a
 * carrier that certainly did not take it (NotTakenError, or a failure before its wire mark: no bind) is
 * skipped for SMS_CARRIER_BACKOFF and the next one is tried; a submission that may have reached a
 * carrier (an answer lost, a part of a long message taken) is never handed to another. Each carrier
 * keeps its own bind, window and submit rate, so one carrier's outage stalls no other. The carriers and
 * routes are read again every SMS_ROUTES_REFRESH; the carrier of the SMPP_* variables is `default`.
 */
export interface CarrierRouterOptions {
  /** The carrier `default` (SMPP_* variables): used when no route matches. */
  fallback: SmsCarrier;
  /** The operator's carriers and routes (the database). */
  load: () => Promise<{ carriers: CarrierSettings[]; routes: Route[] }>;
  /** A client of one carrier (an SMPP bind). */
  connect: (settings: CarrierSettings) => SmsCarrier;
  /** What the routes match on: the destination's digits, country MCCs, network. */
  destinationOf: (to: string) => Destination;
  backoffMs: number;
  refreshMs: number;
  logger: Logger;
  /** How long a replaced carrier's bind stays open for the submissions still on it. */
  retireAfterMs?: number;
}

interface Bound {
  settings: CarrierSettings;
  carrier: SmsCarrier;
  /** The settings it was built from: a change builds a new client. */
  key: string;
}

export interface CarrierRouter extends SmsCarrier {
  /** Reads the carriers and routes now (also done every refreshMs). */
  refresh(): Promise<void>;
}

export function createCarrierRouter(options: CarrierRouterOptions): CarrierRouter {
  const log = options.logger;
  const bound = new Map<string, Bound>();
  let routes: Route[] = [];
  /** Until when each carrier (by identity) is skipped. */
  const backoffUntil = new Map<string, number>();
  /** Every listener registered on the router, applied to each carrier (those built later too). */
  const registrations: Array<(carrier: SmsCarrier) => void> = [];
  let closed = false;

  const register = (apply: (carrier: SmsCarrier) => void) => {
    registrations.push(apply);
    apply(options.fallback);
    for (const entry of bound.values()) apply(entry.carrier);
  };

  const retire = (carrier: SmsCarrier) => {
    const timer = setTimeout(() => void carrier.close().catch(() => {}), options.retireAfterMs ?? 30_000);
    timer.unref();
  };

  async function refresh(): Promise<void> {
    const loaded = await options.load();
    if (closed) return;
    const seen = new Set<string>();
    for (const settings of loaded.carriers) {
      seen.add(settings.name);
      const key = JSON.stringify(settings);
      const current = bound.get(settings.name);
      if (current?.key === key) continue;
      if (current) retire(current.carrier);
      const carrier = options.connect(settings);
      for (const apply of registrations) apply(carrier);
      bound.set(settings.name, { settings, carrier, key });
      log.info({ carrier: settings.name, enabled: settings.enabled }, 'sms carrier configured');
    }
    for (const [name, entry] of bound)
      if (!seen.has(name)) {
        bound.delete(name);
        retire(entry.carrier);
      }
    routes = loaded.routes;
  }

  let loaded: Promise<void> | undefined;
  const ready = () => {
    loaded ??= refresh().catch((error: Error) => {
      loaded = undefined;
      log.error({ err: error.message }, 'sms carriers and routes not read');
      throw new NotTakenError(`carriers and routes not read: ${error.message}`);
    });
    return loaded;
  };
  const timer = setInterval(() => {
    refresh().catch((error: Error) =>
      log.warn({ err: error.message }, 'sms carriers and routes not read again; the last ones kept'),
    );
  }, options.refreshMs);
  timer.unref();

  const carrierNamed = (name: string): SmsCarrier | undefined =>
    name === DEFAULT_CARRIER ? options.fallback : bound.get(name)?.carrier;

  function candidates(submission: CarrierSubmission): { carriers: SmsCarrier[]; pinned: boolean } {
    if (submission.carrier) {
      const all = [options.fallback, ...[...bound.values()].map((entry) => entry.carrier)];
      const pinned = all.find((carrier) => carrier.identity === submission.carrier);
      // In doubt on a carrier no longer configured: never sent elsewhere (retried until the submit timeout).
      if (!pinned) throw new Error(`carrier ${submission.carrier} of a message in doubt is not configured`);
      return { carriers: [pinned], pinned: true };
    }
    const settings = new Map([...bound].map(([name, entry]) => [name, entry.settings]));
    const names = carriersFor(routes, settings, options.destinationOf(submission.to));
    const carriers = names.map(carrierNamed).filter((carrier) => carrier !== undefined);
    if (carriers.length === 0) throw new NotTakenError(`no enabled carrier for ${names.join(', ')}`);
    return { carriers, pinned: false };
  }

  return {
    identity: options.fallback.identity,

    async submit(submission): Promise<CarrierSubmitResult> {
      await ready();
      const { carriers, pinned } = candidates(submission);
      // A carrier backing off is skipped while another of the route is not; when all are, they are
      // tried in order all the same (a lone carrier behaves as it did before routes).
      const now = Date.now();
      const resting = (carrier: SmsCarrier) => (backoffUntil.get(carrier.identity) ?? 0) > now;
      const open = carriers.filter((carrier) => !resting(carrier));
      const order = open.length > 0 ? open : carriers;
      let last: Error | undefined;
      for (const carrier of order) {
        let wired = false;
        let local = false;
        const beforeWire = async () => {
          wired = true;
          try {
            await submission.beforeWire?.(carrier.identity);
          } catch (error) {
            local = true;
            throw error;
          }
        };
        try {
          const answer = await carrier.submit({ ...submission, beforeWire });
          return answer.outcome === 'submitted' ? { ...answer, carrier: carrier.identity } : answer;
        } catch (error) {
          const notTaken = error instanceof NotTakenError || !wired;
          // Maybe taken (or our own mark failed): this carrier's, never another's.
          if (!notTaken || local || pinned) throw error;
          backoffUntil.set(carrier.identity, Date.now() + options.backoffMs);
          log.warn(
            { carrier: carrier.identity, err: (error as Error).message, backoffMs: options.backoffMs },
            'sms carrier did not take a message; skipped for a while, the next of the route tried',
          );
          last = error as Error;
        }
      }
      throw last instanceof NotTakenError ? last : new NotTakenError(last?.message ?? 'not taken');
    },

    onReceipt(listener) {
      register((carrier) => carrier.onReceipt(listener));
    },
    onInbound(listener) {
      register((carrier) => carrier.onInbound?.(listener));
    },

    refresh,

    async close() {
      closed = true;
      clearInterval(timer);
      await Promise.all(
        [options.fallback, ...[...bound.values()].map((entry) => entry.carrier)].map((c) => c.close()),
      );
      bound.clear();
    },
  };
}
