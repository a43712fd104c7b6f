import { asc, eq } from 'drizzle-orm';
import { sealCarrierPassword } from '../../credentials/messaging/carriers.ts';
import { messagingCarriers, messagingRoutes } from '../../db/schema/messaging.ts';
import {
  CARRIER_NAME_PATTERN,
  DEFAULT_CARRIER,
  ROUTE_MCCMNC_PATTERN,
  ROUTE_PREFIX_PATTERN,
  type Route,
} from '../../domain/messaging/carrier-routes.ts';
import { LONG_MESSAGE_MODES, type LongMessageMode } from '../../domain/messaging/segments.ts';
import { outboundUrlPolicy } from '../../domain/outbound-url.ts';
import { SANDBOX_SMPP_PASSWORD } from '../../platform/messaging/config.ts';
import { partyUrlRefusal } from '../../platform/production-parties.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { type FieldError, Refusal } from '../shared/refusal.ts';

/**
 * The operator's SMS carriers and routes (decision 0079), through the admin API and `npm run admin`.
 * A carrier is created or changed whole but for its password (kept when not given); `enabled: false`
 * takes it out of every route (its bind stays for the receipts of what it took). The worker's router
 * reads them within SMS_ROUTES_REFRESH.
 */

export interface CarrierInput {
  url?: string | undefined;
  systemId?: string | undefined;
  password?: string | undefined;
  window?: number | undefined;
  submitRate?: number | null | undefined;
  longMessages?: string | undefined;
  enabled?: boolean | undefined;
}

export interface CarrierView {
  name: string;
  url: string;
  systemId: string;
  window: number;
  submitRate: number | null;
  longMessages: LongMessageMode;
  enabled: boolean;
  updatedAt: string;
}

export interface RouteInput {
  prefix?: string | null | undefined;
  mccMnc?: string | null | undefined;
  priority?: number | undefined;
  carriers?: string[] | undefined;
  enabled?: boolean | undefined;
}

export type RouteView = Route & { updatedAt: string };

const between = (value: number | undefined | null, min: number, max: number) =>
  value === undefined || value === null || (Number.isInteger(value) && value >= min && value <= max);

function carrierView(row: typeof messagingCarriers.$inferSelect): CarrierView {
  return {
    name: row.name,
    url: row.url,
    systemId: row.systemId,
    window: row.window,
    submitRate: row.submitRate,
    longMessages: row.longMessages as LongMessageMode,
    enabled: row.enabled,
    updatedAt: row.updatedAt.toISOString(),
  };
}

function routeView(row: typeof messagingRoutes.$inferSelect): RouteView {
  const { createdAt, updatedAt, ...route } = row;
  return { ...route, updatedAt: updatedAt.toISOString() };
}

/** Why a carrier's address cannot be used: not smpp://host:port, or (production) a private address. */
function urlProblem(deps: Pick<UseCaseDeps, 'config'>, url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be smpp://<host>:<port>';
  }
  if (parsed.protocol !== 'smpp:' || !parsed.hostname || !parsed.port) return 'must be smpp://<host>:<port>';
  if (deps.config.PLATFORM_MODE !== 'production') return null;
  const policy = outboundUrlPolicy({
    PLATFORM_MODE: 'production',
    OUTBOUND_URL_ALLOWLIST: deps.config.PRODUCTION_ALLOW_PRIVATE_PARTIES ?? [],
  });
  const refused = partyUrlRefusal(policy, url);
  return refused
    ? `must not name a loopback, private or special-purpose address in production (${refused})`
    : null;
}

export async function listCarriers(deps: Pick<UseCaseDeps, 'db'>): Promise<{ items: CarrierView[] }> {
  const rows = await deps.db.select().from(messagingCarriers).orderBy(asc(messagingCarriers.name));
  return { items: rows.map(carrierView) };
}

/** Creates or changes the carrier `name`; 400 naming every bad field, nothing stored. */
export async function putCarrier(
  deps: Pick<UseCaseDeps, 'db' | 'config'>,
  { name, carrier }: { name: string; carrier: CarrierInput },
): Promise<CarrierView> {
  const problems: FieldError[] = [];
  const problem = (field: string, message: string) => problems.push({ field, message });
  if (!CARRIER_NAME_PATTERN.test(name) || name === DEFAULT_CARRIER)
    problem('name', 'lower-case letters, digits, - and _ (up to 40), not `default`');
  const [existing] = CARRIER_NAME_PATTERN.test(name)
    ? await deps.db.select().from(messagingCarriers).where(eq(messagingCarriers.name, name))
    : [];
  const url = carrier.url ?? existing?.url;
  const urlRefusal = url === undefined ? 'required' : urlProblem(deps, url);
  if (urlRefusal) problem('url', urlRefusal);
  const systemId = carrier.systemId ?? existing?.systemId;
  if (!systemId || !/^[\x21-\x7e]{1,16}$/.test(systemId))
    problem('systemId', 'required, 1 to 16 printable ASCII characters (SMPP system_id)');
  if (carrier.password !== undefined && !/^[\x21-\x7e]{1,9}$/.test(carrier.password))
    problem('password', '1 to 9 printable ASCII characters (SMPP password)');
  else if (carrier.password === undefined && !existing) problem('password', 'required for a new carrier');
  else if (deps.config.PLATFORM_MODE === 'production' && carrier.password === SANDBOX_SMPP_PASSWORD)
    problem('password', "the sandbox SMSC's published password is refused in production");
  if (!between(carrier.window, 1, 1000)) problem('window', 'an integer from 1 to 1000');
  if (!between(carrier.submitRate, 1, 10_000)) problem('submitRate', 'an integer from 1 to 10000, or null');
  if (
    carrier.longMessages !== undefined &&
    !LONG_MESSAGE_MODES.includes(carrier.longMessages as LongMessageMode)
  )
    problem('longMessages', `one of ${LONG_MESSAGE_MODES.join(', ')}`);
  if (problems.length > 0) throw Refusal.validation(problems);

  const values = {
    url: url!,
    systemId: systemId!,
    ...(carrier.password !== undefined
      ? { passwordSealed: sealCarrierPassword(deps.config, name, carrier.password) }
      : {}),
    ...(carrier.window !== undefined ? { window: carrier.window } : {}),
    ...(carrier.submitRate !== undefined ? { submitRate: carrier.submitRate } : {}),
    ...(carrier.longMessages !== undefined ? { longMessages: carrier.longMessages } : {}),
    ...(carrier.enabled !== undefined ? { enabled: carrier.enabled } : {}),
    updatedAt: new Date(),
  };
  const [row] = existing
    ? await deps.db.update(messagingCarriers).set(values).where(eq(messagingCarriers.name, name)).returning()
    : await deps.db
        .insert(messagingCarriers)
        .values({ name, passwordSealed: '', ...values })
        .returning();
  return carrierView(row!);
}

export async function listRoutes(deps: Pick<UseCaseDeps, 'db'>): Promise<{ items: RouteView[] }> {
  const rows = await deps.db.select().from(messagingRoutes).orderBy(asc(messagingRoutes.name));
  return { items: rows.map(routeView) };
}

/** Creates or changes the route `name`; 400 naming every bad field (an unknown carrier too). */
export async function putRoute(
  deps: Pick<UseCaseDeps, 'db'>,
  { name, route }: { name: string; route: RouteInput },
): Promise<RouteView> {
  const problems: FieldError[] = [];
  const problem = (field: string, message: string) => problems.push({ field, message });
  if (!CARRIER_NAME_PATTERN.test(name)) problem('name', 'lower-case letters, digits, - and _ (up to 40)');
  const [existing] = CARRIER_NAME_PATTERN.test(name)
    ? await deps.db.select().from(messagingRoutes).where(eq(messagingRoutes.name, name))
    : [];
  const prefix = route.prefix !== undefined ? route.prefix : (existing?.prefix ?? null);
  const mccMnc = route.mccMnc !== undefined ? route.mccMnc : (existing?.mccMnc ?? null);
  if (prefix !== null && !ROUTE_PREFIX_PATTERN.test(prefix))
    problem('prefix', 'the first digits of E.164 numbers, without +');
  if (mccMnc !== null && !ROUTE_MCCMNC_PATTERN.test(mccMnc))
    problem('mccMnc', 'an MCC (3 digits) or MCC+MNC (5 or 6 digits)');
  if (prefix === null && mccMnc === null) problem('prefix', 'a prefix or an mccMnc is required');
  if (!between(route.priority, 0, 1000)) problem('priority', 'an integer from 0 to 1000');
  const carriers = route.carriers ?? existing?.carriers;
  if (!carriers || carriers.length === 0 || carriers.length > 10)
    problem('carriers', 'from 1 to 10 carrier names, in failover order');
  else {
    const known = new Set(
      (await deps.db.select({ name: messagingCarriers.name }).from(messagingCarriers)).map((row) => row.name),
    );
    carriers.forEach((carrier, index) => {
      if (carrier !== DEFAULT_CARRIER && !known.has(carrier))
        problem(`carriers.${index}`, `no carrier ${carrier} (create it first, or name \`default\`)`);
      else if (carriers.indexOf(carrier) !== index) problem(`carriers.${index}`, 'named twice');
    });
  }
  if (problems.length > 0) throw Refusal.validation(problems);
  const values = {
    prefix,
    mccMnc,
    carriers: carriers!,
    ...(route.priority !== undefined ? { priority: route.priority } : {}),
    ...(route.enabled !== undefined ? { enabled: route.enabled } : {}),
    updatedAt: new Date(),
  };
  const [row] = existing
    ? await deps.db.update(messagingRoutes).set(values).where(eq(messagingRoutes.name, name)).returning()
    : await deps.db
        .insert(messagingRoutes)
        .values({ name, ...values })
        .returning();
  return routeView(row!);
}
