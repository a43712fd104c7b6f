import { randomInt } from 'node:crypto';
import { z } from '@hono/zod-openapi';
import {
  WorkflowExecutionAlreadyStartedError,
  type WorkflowHandle,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import { and, eq } from 'drizzle-orm';
import type { Context } from 'hono';
import type { ZodError } from 'zod';
import { loadMerchant, type Merchant } from '../../credentials/collect/merchants.ts';
import { collectObligations } from '../../db/schema/collect.ts';
import { packetDigest, verifyChecksum } from '../../domain/collect/checksum.ts';
import {
  badField,
  type CollectErrorCode,
  CollectProtocolError,
  collectErrorCodes,
  missingField,
} from '../../domain/collect/errors.ts';
import {
  isOpen,
  type ObligationKind,
  ObligationRefusal,
  refusalOf,
} from '../../domain/collect/obligation.ts';
import { canonicalPacket, decodePacket, type Packet } from '../../domain/collect/packet.ts';
import { IDN_TEXT, MIN_TEXT, type ObligationTerms } from '../../domain/collect/payloads.ts';
import { type ObligationInput, obligationWorkflowId } from '../../domain/collect/processes.ts';
import { formatExpTime } from '../../domain/collect/time.ts';
import { BusinessStatus, OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import type { ApiDeps, AppEnv } from '../shared/context.ts';

/**
 * The ePay-style protocol of the ENCODED/CHECKSUM endpoints: reading the parameters, authenticating
 * the packet, the `KEY=VALUE` text answers, idempotent registration of obligations and the mapping of
 * refused workflow Updates to protocol errors. One file per operation builds on these.
 */

export type Obligation = typeof collectObligations.$inferSelect;
type CollectContext = Context<AppEnv>;

/** Parameters by upper-cased name: ePay clients send both `ENCODED` and `encoded`. */
export async function requestParams(c: CollectContext): Promise<Record<string, string>> {
  const params: Record<string, string> = {};
  const add = (key: string, value: unknown) => {
    if (typeof value === 'string' && params[key.toUpperCase()] === undefined)
      params[key.toUpperCase()] = value;
  };
  if (c.req.method === 'POST') {
    const type = c.req.header('content-type') ?? '';
    if (type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data')) {
      for (const [key, value] of Object.entries(await c.req.parseBody())) add(key, value);
    }
  }
  for (const [key, value] of Object.entries(c.req.query())) add(key, value);
  return params;
}

export interface AuthenticatedPacket {
  merchant: Merchant;
  packet: Packet;
}

/**
 * ENCODED and CHECKSUM present → ENCODED decodes → MIN names a merchant → CHECKSUM is the HMAC of
 * ENCODED with that merchant's secret (constant-time). Each failure is its own error code.
 */
export async function authenticate(
  deps: ApiDeps,
  params: Record<string, string>,
): Promise<AuthenticatedPacket> {
  const encoded = params.ENCODED;
  if (!encoded) throw missingField('ENCODED');
  const checksum = params.CHECKSUM;
  if (!checksum) throw missingField('CHECKSUM');
  const packet = decodePacket(encoded);
  const min = packet.MIN;
  if (!min) throw missingField('MIN');
  if (!MIN_TEXT.test(min)) throw badField('MIN', 'must be D followed by 9 digits');
  const merchant = await loadMerchant(deps.db, deps.config, min);
  if (!merchant) throw new CollectProtocolError('UNKNOWN_MERCHANT', `no merchant has MIN ${min}`);
  if (!verifyChecksum(encoded, checksum, merchant.secret)) {
    throw new CollectProtocolError(
      'BAD_CHECKSUM',
      'CHECKSUM is not the HMAC-SHA1 of ENCODED with the merchant secret',
    );
  }
  return { merchant, packet };
}

/** A `KEY=VALUE` text answer, one line each, in the order given (undefined values left out). */
export function textAnswer(
  c: CollectContext,
  fields: Record<string, string | number | undefined>,
  status: 200 | 201 = 200,
  headers: Record<string, string> = {},
): Response {
  const lines = Object.entries(fields)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([key, value]) => `${key}=${String(value).replace(/[\r\n]+/g, ' ')}`);
  return c.body(`${lines.join('\n')}\n`, status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
}

/** A protocol error as its answer: `ERR=`/`ERRMSG=`/`FIELD=` text with the code's status. */
export function protocolError(c: CollectContext, error: CollectProtocolError): Response {
  return c.body(`${error.toText()}\n`, error.status as 400, { 'content-type': 'text/plain; charset=utf-8' });
}

/** Wraps an operation: protocol errors become `ERR=`/`ERRMSG=`/`FIELD=` text with their status. */
export function protocolHandler<C extends CollectContext>(operation: (c: C) => Promise<Response>) {
  return async (c: C): Promise<Response> => {
    try {
      return await operation(c);
    } catch (error) {
      if (error instanceof CollectProtocolError) return protocolError(c, error);
      c.get('deps').logger.error({ err: error, path: c.req.path }, 'collect operation failed');
      return protocolError(c, new CollectProtocolError('INTERNAL', 'internal error; try again later'));
    }
  };
}

/**
 * The `defaultHook` of the collect app: a request its route's schemas refuse is answered like any
 * protocol error, `ERR=MISSING_FIELD` or `ERR=BAD_FIELD` text naming the field.
 */
export function collectValidationHook(
  result: { success: true } | { success: false; error: ZodError },
  c: CollectContext,
): Response | undefined {
  if (result.success) return undefined;
  const issue = result.error.issues[0];
  const field = issue?.path[0] === undefined ? 'request' : String(issue.path[0]);
  const missing = issue?.code === 'invalid_type' && / received undefined$/.test(issue.message);
  return protocolError(c, missing ? missingField(field) : badField(field, issue?.message ?? 'not valid'));
}

/** The expiry of a registration: EXP_TIME when given (in the future, within COLLECT_MAX_EXPIRY), else the default. */
export function resolveExpiry(
  deps: ApiDeps,
  expTime: Date | undefined,
  defaultMs: number,
  now = new Date(),
): Date {
  if (!expTime) return new Date(now.getTime() + defaultMs);
  return checkNewExpiry(deps, expTime, now);
}

export function checkNewExpiry(deps: ApiDeps, expTime: Date, now = new Date()): Date {
  if (expTime.getTime() <= now.getTime()) throw badField('EXP_TIME', 'has passed');
  if (expTime.getTime() > now.getTime() + deps.config.COLLECT_MAX_EXPIRY) {
    throw badField('EXP_TIME', 'is further away than the gateway allows');
  }
  return expTime;
}

/** A 10-digit IDN whose first digit is 1-8: 9 is left to billing prefixes, 0 to nobody (leading zeros get lost). */
const generateIdn = () => `${randomInt(1, 9)}${String(randomInt(0, 1_000_000_000)).padStart(9, '0')}`;

export interface Registration {
  merchant: Merchant;
  packet: Packet;
  kind: ObligationKind;
  /** What every registering payload carries: INVOICE, AMOUNT, CURRENCY, DESCR, EXP_TIME. */
  terms: ObligationTerms;
  defaultExpiryMs: number;
  /** Fields of the operation's own (recipient, IBAN, payer...), kept in the read model. */
  details: Record<string, string>;
}

export interface Registered {
  obligation: Obligation;
  /** The same packet had been registered before: this is its obligation, not a new one. */
  replayed: boolean;
}

async function findByInvoice(deps: ApiDeps, min: string, invoice: string): Promise<Obligation | undefined> {
  const [row] = await deps.db
    .select()
    .from(collectObligations)
    .where(and(eq(collectObligations.merchantMin, min), eq(collectObligations.invoice, invoice)));
  return row;
}

function replayOf(existing: Obligation, digest: string): Registered {
  if (existing.payloadDigest !== digest) {
    throw new CollectProtocolError(
      'DUPLICATE_INVOICE',
      `INVOICE ${existing.invoice} is registered already (IDN ${existing.idn}) with different data`,
      'INVOICE',
    );
  }
  return { obligation: existing, replayed: true };
}

/**
 * Registers an obligation once per merchant and INVOICE: the read-model row is written first (its unique
 * index is the idempotency key), then the `collect-<idn>`/`payout-<idn>` workflow is started. The same
 * packet again answers the same obligation; another packet with the same INVOICE is DUPLICATE_INVOICE.
 */
export async function registerObligation(deps: ApiDeps, registration: Registration): Promise<Registered> {
  const { merchant } = registration;
  const { invoice } = registration.terms;
  const digest = packetDigest(canonicalPacket(registration.packet));
  const earlier = await findByInvoice(deps, merchant.min, invoice);
  if (earlier) {
    const replay = replayOf(earlier, digest);
    await ensureWorkflow(deps, replay.obligation);
    return replay;
  }
  const expiresAt = resolveExpiry(deps, registration.terms.expTime, registration.defaultExpiryMs);
  for (let attempt = 0; attempt < 5; attempt++) {
    const [row] = await deps.db
      .insert(collectObligations)
      .values({
        idn: generateIdn(),
        merchantMin: merchant.min,
        invoice,
        kind: registration.kind,
        status: registration.kind === 'preauth' ? 'HELD' : 'PENDING',
        amountMinor: registration.terms.amountMinor,
        currency: registration.terms.currency,
        description: registration.terms.descr ?? null,
        payloadDigest: digest,
        details: registration.details,
        expiresAt,
      })
      .onConflictDoNothing()
      .returning();
    if (row) {
      try {
        await startWorkflow(deps, row);
      } catch (error) {
        // Without its workflow the obligation could never expire: take it back so a retry starts afresh.
        await deps.db.delete(collectObligations).where(eq(collectObligations.idn, row.idn));
        throw error;
      }
      return { obligation: row, replayed: false };
    }
    // Either the same INVOICE won a race, or the random IDN was taken: the first is a replay or a conflict.
    const raced = await findByInvoice(deps, merchant.min, invoice);
    if (raced) return replayOf(raced, digest);
  }
  throw new Error('could not allocate a free IDN');
}

async function startWorkflow(deps: ApiDeps, row: Obligation): Promise<void> {
  const input: ObligationInput = {
    idn: row.idn,
    merchantMin: row.merchantMin,
    invoice: row.invoice,
    kind: row.kind,
    amountMinor: row.amountMinor,
    currency: row.currency,
    expiresAt: row.expiresAt.toISOString(),
  };
  await deps.temporal.workflow.start('collectObligation', {
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    workflowId: obligationWorkflowId(row.kind, row.idn),
    args: [input],
    typedSearchAttributes: [
      { key: PlatformService, value: 'collect' },
      { key: OwnerId, value: row.merchantMin },
      { key: BusinessStatus, value: row.status },
    ],
    staticSummary: `${row.kind.replace('_', ' ')} ${row.idn}: invoice ${row.invoice} of ${row.merchantMin}`,
  });
}

/** A replay repairs a registration whose workflow start was lost (the start is idempotent by id). */
async function ensureWorkflow(deps: ApiDeps, row: Obligation): Promise<void> {
  if (!isOpen(row.status)) return;
  try {
    await startWorkflow(deps, row);
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** The merchant's own obligation by IDN; another merchant's is NOT_FOUND, never its data. */
export async function findOwnObligation(deps: ApiDeps, min: string, idn: string): Promise<Obligation> {
  const [row] = await deps.db
    .select()
    .from(collectObligations)
    .where(and(eq(collectObligations.idn, idn), eq(collectObligations.merchantMin, min)));
  if (!row) throw new CollectProtocolError('NOT_FOUND', `no obligation ${idn}`, 'IDN');
  return row;
}

export async function findObligation(deps: ApiDeps, idn: string): Promise<Obligation | undefined> {
  const [row] = await deps.db.select().from(collectObligations).where(eq(collectObligations.idn, idn));
  return row;
}

/**
 * Runs an Update (`run`) on the obligation's workflow handle; a refusal by its validator becomes the protocol error of
 * the same name (`badFieldName` names the field of a BAD_FIELD refusal).
 */
export async function updateObligation<Ret>(
  deps: ApiDeps,
  row: Obligation,
  run: (handle: WorkflowHandle) => Promise<Ret>,
  badFieldName = 'EXP_TIME',
): Promise<Ret> {
  try {
    return await run(deps.temporal.workflow.getHandle(obligationWorkflowId(row.kind, row.idn)));
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
      const type = error.cause.type ?? '';
      if (type === ObligationRefusal.badField) throw badField(badFieldName, error.cause.message);
      if (type in collectErrorCodes) {
        throw new CollectProtocolError(
          type as CollectErrorCode,
          error.cause.message,
          type === ObligationRefusal.amountExceedsHold ? 'AMOUNT' : undefined,
        );
      }
    }
    if (error instanceof WorkflowNotFoundError) {
      // The workflow has just closed (settled or expired meanwhile): the read model says which.
      const now = (await findObligation(deps, row.idn)) ?? row;
      const refusal = refusalOf(now.status, now.expiresAt.getTime(), Date.now());
      if (refusal) throw new CollectProtocolError(refusal.type as CollectErrorCode, refusal.message);
    }
    throw error;
  }
}

// --- OpenAPI pieces shared by the operation files -------------------------------------------------

/**
 * A parameter as the protocol reads it (requestParams): optional, and when given twice its first value
 * counts. Validation of such a parameter never refuses what the protocol accepts, so it documents the
 * parameter without changing how the operation answers; the operation checks it (MISSING_FIELD, ...).
 */
export const protocolParam = () =>
  z.preprocess((value) => (Array.isArray(value) ? value[0] : value), z.string().optional());

const ENCODED_DOC = {
  description: 'Base64 of the packet: `KEY=VALUE` lines (see the payload model). `encoded` is accepted too.',
  example: 'TUlOPUQxMjM0NTY3ODkKSU5WT0lDRT0xMDAxCkFNT1VOVD0yMi44MApFWFBfVElNRT0wMS4wOC4yMDI3',
};
const CHECKSUM_DOC = {
  description:
    'Lowercase hex HMAC-SHA1 of the ENCODED text keyed with the merchant secret. `checksum` is accepted too.',
  example: '5c0ec6d1a8a7f4b2b6b5d0c9f6a1e5d4c3b2a190',
};

export const encodedQuerySchema = z.object({
  ENCODED: protocolParam().openapi(ENCODED_DOC),
  CHECKSUM: protocolParam().openapi(CHECKSUM_DOC),
});

/**
 * ENCODED and CHECKSUM as form fields, documentation only: a plain OpenAPI schema, so the route neither
 * validates the body nor refuses another content type (requestParams reads the form, else the query).
 */
export const encodedFormDocumentation = {
  type: 'object' as const,
  properties: {
    ENCODED: { type: 'string' as const, ...ENCODED_DOC },
    CHECKSUM: { type: 'string' as const, ...CHECKSUM_DOC },
  },
};

const textSchema = z.string().openapi({ example: 'IDN=1234567890\n' });

/** Responses of a text endpoint: the success lines and the `ERR=` errors, with the codes they use. */
export function textResponses(success: string, example: string, errors: readonly CollectErrorCode[]) {
  const responses: Record<
    string,
    { description: string; content: Record<string, { schema: typeof textSchema }> }
  > = {
    200: { description: success, content: { 'text/plain': { schema: textSchema.openapi({ example }) } } },
  };
  for (const code of errors) {
    const { status, meaning } = collectErrorCodes[code];
    const entry = responses[status];
    const line = `\`ERR=${code}\`: ${meaning}`;
    if (entry) entry.description += `; ${line}`;
    else {
      responses[status] = {
        description: line,
        content: { 'text/plain': { schema: textSchema.openapi({ example: `ERR=${code}\nERRMSG=...\n` }) } },
      };
    }
  }
  return responses;
}

/** Errors every authenticated ENCODED endpoint can answer. */
export const authenticationErrors: readonly CollectErrorCode[] = [
  'MISSING_FIELD',
  'BAD_FIELD',
  'BAD_ENCODED',
  'UNKNOWN_MERCHANT',
  'BAD_CHECKSUM',
];

/** The answer of a registration: `IDN`, `STATUS`, `EXP_TIME` (Sofia time) and any extra lines. */
export function registrationAnswer(
  c: CollectContext,
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

// --- Sandbox demo endpoints (they play the office) ------------------------------------------------

/** The demo endpoints do not exist with PLATFORM_MODE=production (404). */
export function demoOnly(c: CollectContext): void {
  if (c.get('deps').config.PLATFORM_MODE === 'production') {
    throw new CollectProtocolError('NOT_FOUND', 'demo endpoints are disabled in production mode');
  }
}

/** A 10-digit IDN parameter (MISSING_FIELD, BAD_FIELD otherwise). */
export function requireIdn(value: string | undefined, field: string): string {
  if (!value) throw missingField(field);
  if (!IDN_TEXT.test(value)) throw badField(field, 'must be 10 digits');
  return value;
}
