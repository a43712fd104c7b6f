import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { collect, type ReviewItem } from '../../application/collect/index.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import { formatAmount } from '../../domain/collect/amount.ts';
import { camtKinds } from '../../domain/collect/statement.ts';
import { reviewReasonCodes, reviewReasons } from '../../domain/collect/statement-matching.ts';
import type { AppEnv } from '../shared/context.ts';
import { errorBodySchema, errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';

/**
 * Operator endpoints of bank statements (docs/collect.md "Bank statements", decision 0031): upload a
 * camt.053/054 document, follow its import, work the review list. The HTTP twin of
 * `npm run admin -- collect:statement <file>` and of the watched folder.
 */

const errorContent = { 'application/json': { schema: errorBodySchema } };

const receivedSchema = z
  .object({
    statementId: z.string().openapi({ example: 'st_5f0c1d2e3a4b5c6d7e8f9a0b' }),
    kind: z.enum(camtKinds),
    messageDefinition: z.string().openapi({ example: 'camt.053.001.08' }),
    account: z.string().openapi({ example: 'BG80BNBG96611020345678' }),
    documentId: z.string().openapi({ description: 'Stmt/Id or Ntfctn/Id', example: 'STMT-2027-07-15' }),
    credits: z
      .number()
      .int()
      .openapi({ description: 'Booked credits in the document (entries judged on their own included)' }),
    alreadyImported: z
      .number()
      .int()
      .openapi({ description: 'Of those, credits an earlier statement or notification imported' }),
    skipped: z.object({ debits: z.number().int(), notBooked: z.number().int() }),
    duplicate: z.boolean().openapi({ description: 'The statement was imported before: nothing changed' }),
    status: z.enum(['importing', 'imported']),
  })
  .openapi('ReceivedStatement');

const uploadRoute = createRoute({
  method: 'post',
  path: '/collect/statements',
  tags: ['Admin'],
  summary: 'Import a bank statement (camt.052, camt.053 or camt.054)',
  description:
    'The body is the XML document (`application/xml` or `text/xml`), or `multipart/form-data` with the ' +
    'document in a `file` part: camt.052, camt.053 or camt.054, versions 02 to 08 (later ones of the ' +
    'same shape too), alone or in a business application header envelope (`AppHdr` + `Document`), ' +
    'decoded as its XML declaration says (UTF-8, ISO-8859-1, windows-1252, ...). Booked credits are matched to open obligations by the 10-digit IDN in the ' +
    'remittance information, amount and currency; matched ones are settled through their workflows, the ' +
    'rest go to the review list. 202 while importing (GET the statement to follow it); 200 when every ' +
    'statement in the document was imported before (nothing changes). 400 `statement_malformed_xml`, ' +
    '`statement_dtd_refused` (any DTD or entity declaration); 413 `statement_too_large` ' +
    '(COLLECT_STATEMENT_MAX_BYTES); 415 for another content type; 422 `statement_unsupported_document` ' +
    '(not camt.052/053/054), `statement_invalid` (`fields` names the element: the statement has no Id, ' +
    'account or MsgId; an entry that cannot be read goes to the review list instead); 400 ' +
    '`statement_unsupported_encoding` (an XML encoding no decoder knows); 409 `statement_conflict` when ' +
    'the same statement (kind, account, Id) was imported with other content.',
  request: {
    body: {
      required: true,
      content: {
        'application/xml': { schema: z.string().openapi({ description: 'The camt document' }) },
      },
    },
  },
  responses: {
    200: {
      description: 'Imported before; nothing changed',
      content: { 'application/json': { schema: z.object({ statements: z.array(receivedSchema) }) } },
    },
    202: {
      description: 'Importing',
      content: { 'application/json': { schema: z.object({ statements: z.array(receivedSchema) }) } },
    },
    ...errorResponses,
    409: { description: 'Same statement, other content', content: errorContent },
    413: { description: 'Too large', content: errorContent },
    415: { description: 'Not XML or multipart', content: errorContent },
    422: { description: 'Not a camt.053/054 statement', content: errorContent },
  },
});

const statementIdParam = z.object({
  id: z
    .string()
    .regex(/^st_[0-9a-f]{24}$/, 'a statement id (st_ and 24 hex digits)')
    .openapi({ example: 'st_5f0c1d2e3a4b5c6d7e8f9a0b' }),
});

const statementSchema = z
  .object({
    statementId: z.string(),
    kind: z.string(),
    messageDefinition: z.string(),
    messageId: z.string(),
    documentId: z.string(),
    account: z.string(),
    origin: z.string().openapi({ description: 'upload, folder or admin' }),
    fileName: z.string().nullable(),
    status: z.enum(['importing', 'imported']),
    credits: z.number().int().openapi({ description: 'Credits this statement imported' }),
    settled: z.number().int(),
    review: z.number().int().openapi({ description: 'In review, or resolved by an operator' }),
    reversed: z.number().int().openapi({
      description: 'Reversals (RvslInd) that took an earlier credit’s payment back (decision 0063)',
    }),
    alreadyImported: z.number().int(),
    skipped: z.object({ debits: z.number().int(), notBooked: z.number().int() }),
    receivedAt: z.string(),
    importedAt: z.string().nullable(),
  })
  .openapi('Statement');

const getRoute = createRoute({
  method: 'get',
  path: '/collect/statements/{id}',
  tags: ['Admin'],
  summary: 'A bank statement and how its import stands',
  request: { params: statementIdParam },
  responses: {
    200: { description: 'The statement', content: { 'application/json': { schema: statementSchema } } },
    ...errorResponses,
  },
});

const reviewItemSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The review item (credit) id' }),
    statementId: z.string(),
    account: z.string(),
    entryRef: z.string().openapi({ description: "The bank's reference of the credit" }),
    amount: z.string().openapi({ example: '22.80' }),
    amountMinor: z.number().int(),
    currency: z.string(),
    bookingDate: z.string().nullable(),
    remittance: z.string(),
    idn: z.string().nullable().openapi({ description: 'The IDN read from the remittance information' }),
    obligationIdn: z.string().nullable(),
    debtorName: z.string().nullable(),
    debtorAccount: z.string().nullable(),
    state: z.string().openapi({ example: 'review' }),
    reason: z.enum(reviewReasonCodes).nullable(),
    reasonText: z.string().nullable(),
    reasonDetail: z
      .string()
      .nullable()
      .openapi({ description: 'What exactly is wrong with the entry, e.g. `Stmt[1].Ntry[4].Amt: 0`' }),
    resolution: z.enum(['settled', 'dismissed']).nullable(),
    resolutionNote: z.string().nullable(),
  })
  .openapi('StatementReviewItem');

const itemOf = (row: ReviewItem) => ({
  id: row.id,
  statementId: row.statementId,
  account: row.account,
  entryRef: row.entryRef,
  amount: formatAmount(row.amountMinor),
  amountMinor: row.amountMinor,
  currency: row.currency,
  bookingDate: row.bookingDate,
  remittance: row.remittance,
  idn: row.idn,
  obligationIdn: row.obligationIdn,
  debtorName: row.debtorName,
  debtorAccount: row.debtorAccount,
  state: row.state,
  reason: row.reason,
  reasonText: row.reason ? reviewReasons[row.reason] : null,
  reasonDetail: row.reasonDetail,
  resolution: row.resolution,
  resolutionNote: row.resolutionNote,
});

const reviewRoute = createRoute({
  method: 'get',
  path: '/collect/statements/review',
  tags: ['Admin'],
  summary: 'Statement credits waiting for an operator',
  description:
    'Credits no obligation was settled with, oldest first, each with its reason: `no_idn`, ' +
    '`ambiguous_idn`, `unknown_idn`, `wrong_kind`, `currency_differs`, `amount_differs` (partly ' +
    'matched), `duplicate_credit`, `obligation_paid`, `obligation_expired`, `obligation_closed`; and ' +
    'entries judged on their own when the statement was read (`reasonDetail` says where and what): ' +
    '`zero_amount`, `unreadable_entry`, `duplicate_entry` (a bank reference twice in one statement), ' +
    '`returned_payment` (RtrInf), `reversal` (a reversed debit), `credit_reversed` (the bank took back ' +
    'an earlier credit: dismiss it once handled; it cannot settle anything). Page ' +
    'with `after` (the last id seen).',
  request: {
    query: z.object({
      after: z.coerce.number().int().min(0).optional().openapi({ description: 'Items after this id' }),
      limit: z.coerce.number().int().min(1).max(500).default(100),
    }),
  },
  responses: {
    200: {
      description: 'Review items',
      content: { 'application/json': { schema: z.object({ items: z.array(reviewItemSchema) }) } },
    },
    ...errorResponses,
  },
});

const resolveRoute = createRoute({
  method: 'post',
  path: '/collect/statements/review/{itemId}/resolve',
  tags: ['Admin'],
  summary: 'Resolve a statement credit in review',
  description:
    '`{"action":"settle","idn":"..."}` pays that obligation with the credit through its workflow (open, ' +
    'paid by bank transfer, same amount and currency; otherwise 409 with the reason as code); ' +
    '`{"action":"dismiss","note":"..."}` closes it (refunded to the payer, booked elsewhere). 409 ' +
    '`not_in_review` when it is not in review.',
  request: {
    params: z.object({ itemId: z.coerce.number().int().min(1) }),
    body: jsonBody(
      z.discriminatedUnion('action', [
        z.object({
          action: z.literal('settle'),
          idn: z.string().regex(/^\d{10}$/, 'a 10-digit IDN'),
          note: z.string().max(2000).optional(),
        }),
        z.object({ action: z.literal('dismiss'), note: z.string().trim().min(1).max(2000) }),
      ]),
    ),
  },
  responses: {
    200: { description: 'Resolved', content: { 'application/json': { schema: reviewItemSchema } } },
    ...errorResponses,
    409: { description: 'Not in review, or the obligation cannot take it', content: errorContent },
  },
});

/** The uploaded document: the XML body, or the `file` part of a multipart form. */
async function documentOf(c: Context<AppEnv>) {
  const type = c.req.header('content-type') ?? '';
  if (/^multipart\/form-data/i.test(type)) {
    const file = (await c.req.parseBody()).file;
    if (!(file instanceof File)) {
      throw Refusal.field('file', 'the camt document is required as the `file` part');
    }
    return { xml: new Uint8Array(await file.arrayBuffer()), fileName: file.name || undefined };
  }
  if (/^(application|text)\/([a-z.+-]*\+)?xml\b/i.test(type))
    return { xml: new Uint8Array(await c.req.arrayBuffer()) };
  throw new Refusal(
    415,
    'unsupported_media_type',
    'Send the statement as application/xml (or text/xml), or as multipart/form-data with a `file` part',
  );
}

export function registerStatementAdminRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(uploadRoute, async (c) => {
    const statements = await collect.uploadStatement(c.get('deps'), await documentOf(c));
    return c.json({ statements }, statements.every((s) => s.duplicate) ? 200 : 202);
  });

  // Before /{id}: `review` is no statement id.
  app.openapi(reviewRoute, async (c) => {
    const items = await collect.statementReviewItems(c.get('deps'), c.req.valid('query'));
    return c.json({ items: items.map(itemOf) }, 200);
  });

  app.openapi(resolveRoute, async (c) => {
    const resolved = await collect.resolveStatementReviewItem(c.get('deps'), {
      itemId: c.req.valid('param').itemId,
      resolution: c.req.valid('json'),
    });
    return c.json(itemOf(resolved), 200);
  });

  app.openapi(getRoute, async (c) =>
    c.json(await collect.readStatement(c.get('deps'), { id: c.req.valid('param').id }), 200),
  );
}
