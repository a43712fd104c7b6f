import { createHash, randomBytes } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import {
  AcquirerRefusal,
  AcquirerUnavailable,
  type Authorisation,
  acquirerFor,
  acquirerIdempotencyKey,
  type CardAcquirer,
} from '../../connectors/collect/acquirer.ts';
import { collectMerchants } from '../../db/schema/collect.ts';
import { collectCardPages } from '../../db/schema/collect-card-page.ts';
import { collectSavedCards } from '../../db/schema/collect-saved-cards.ts';
import { badField, CollectProtocolError, missingField } from '../../domain/collect/errors.ts';
import { OnlinePaymentPayload, PreauthRegisterPayload, parsePayload } from '../../domain/collect/payloads.ts';
import { type CardPaymentDecision, cardPaymentUpdate } from '../../domain/collect/processes.ts';
import { isUnderReturnOrigins } from '../../domain/collect/return-origins.ts';
import { type CardForm, isWellKnownTestCard, validateCard } from '../../domain/collect/test-cards.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { authenticate, findObligation, type Obligation, updateObligation } from './obligation.ts';
import { registerObligation } from './registration.ts';

/**
 * The hosted card page (spec A.1, ePay.bg `PAGE=credit_paydirect`; `credit_preauth` holds a
 * pre-authorisation's amount instead, decision 0032): opening it registers the obligation and issues a
 * single-use token (only its hash is kept); submitting it asks the card acquirer to authorise the amount
 * and moves the obligation through its workflow; the 3-D Secure return asks the acquirer what it decided.
 * Each use case answers what the customer is to be shown (`CardPageOutcome`); the API renders it as HTML.
 * docs/collect.md, decisions 0013 and 0045.
 */

type CardPage = typeof collectCardPages.$inferSelect;

/** Where the customer goes back to the merchant (URL_OK / URL_CANCEL: signed, or under a return origin). */
export type ReturnUrls = Pick<CardPage, 'urlOk' | 'urlCancel'>;

const urlsOf = (page: ReturnUrls): ReturnUrls => ({ urlOk: page.urlOk, urlCancel: page.urlCancel });

/** Errors of the page itself (beside the ENCODED protocol's codes). */
export type PageErrorCode =
  | 'PAGE_NOT_FOUND'
  | 'PAGE_USED'
  | 'PAGE_EXPIRED'
  | 'ACQUIRER_UNAVAILABLE'
  | 'ACQUIRER_REFUSED';

/** The card an obligation's page saved (SAVECARD=1), as the customer is told of it. */
export interface SavedCardNote {
  brand: string;
  last4: string;
}

/** What the card form shows of an open obligation. */
export interface CardFormSubject {
  obligation: Obligation;
  merchantName: string;
}

/** What the customer is to be shown. */
export type CardPageOutcome =
  /** The card form: a fresh page, or again with the customer's problems (`values`, `problems`). */
  | {
      type: 'form';
      subject: CardFormSubject;
      token: string;
      page: ReturnUrls;
      invalid?: { values: CardForm; problems: Partial<Record<keyof CardForm, string>> };
    }
  /** Where an obligation that can no longer be paid on this page stands. */
  | { type: 'closed'; obligation: Obligation; page: ReturnUrls; savedCard?: SavedCardNote | undefined }
  /** The page was submitted before: where its obligation stands, under the PAGE_USED heading. */
  | { type: 'used'; obligation: Obligation; page: ReturnUrls }
  | { type: 'error'; code: PageErrorCode }
  | { type: 'page_expired'; page: ReturnUrls }
  /** Back to the merchant (URL_OK after an approval, URL_CANCEL after a cancel). */
  | { type: 'redirect'; url: string }
  | { type: 'cancelled'; invoice: string }
  | { type: 'challenge'; challengeUrl: string }
  | { type: 'declined'; obligation: Obligation; page: ReturnUrls; reason: string };

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function merchantName(deps: UseCaseDeps, min: string): Promise<string> {
  const [row] = await deps.db
    .select({ name: collectMerchants.name })
    .from(collectMerchants)
    .where(eq(collectMerchants.min, min));
  return row?.name ?? min;
}

const formSubject = async (deps: UseCaseDeps, obligation: Obligation): Promise<CardFormSubject> => ({
  obligation,
  merchantName: await merchantName(deps, obligation.merchantMin),
});

async function savedCardOf(deps: UseCaseDeps, idn: string): Promise<SavedCardNote | undefined> {
  const [card] = await deps.db
    .select({ brand: collectSavedCards.brand, last4: collectSavedCards.last4 })
    .from(collectSavedCards)
    .where(eq(collectSavedCards.idn, idn));
  return card;
}

/**
 * URL_OK / URL_CANCEL sent as form fields (ePay's checkout form has them, and the widely used ePay client
 * libraries can put them nowhere else): they are not covered by the CHECKSUM, so anyone relaying a
 * merchant's signed packet could send the customer elsewhere after a real payment (an open redirect).
 * They are checked (an absolute http(s) URL, else BAD_FIELD, as before) and used only when the signed
 * packet has none and they lie under a return origin the merchant registered (decision 0013); anything
 * else is not used: the customer goes to the signed URL, or sees the result page.
 */
function unsignedReturnUrl(
  value: string | undefined,
  field: string,
  returnOrigins: readonly string[],
): string | null {
  if (value === undefined || value === '') return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badField(field, 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badField(field, 'must be an http(s) URL');
  return isUnderReturnOrigins(value, returnOrigins) ? value : null;
}

/** Registers (or finds again) the obligation the posted page asks for and issues a fresh page token. */
export async function openCardPage(
  deps: UseCaseDeps,
  params: Record<string, string>,
): Promise<CardPageOutcome> {
  const page = params.PAGE;
  if (!page) throw missingField('PAGE');
  // credit_paydirect pays an online payment; credit_preauth holds the amount of a pre-authorisation.
  const mode = page.toLowerCase();
  if (mode !== 'credit_paydirect' && mode !== 'credit_preauth') {
    throw badField('PAGE', 'must be credit_paydirect (card payment) or credit_preauth (card hold)');
  }
  const { merchant, packet } = await authenticate(deps, params);
  const kind = mode === 'credit_preauth' ? 'preauth' : 'online_payment';
  // A hold's packet is the REGISTER packet of POST /v3main/ (same packet, same obligation).
  const payment =
    kind === 'preauth'
      ? parsePayload(PreauthRegisterPayload, { ...packet, PHASE: 'REGISTER' })
      : parsePayload(OnlinePaymentPayload, packet);
  // The signed packet's return URLs first; form fields only under the merchant's return origins.
  const formOk = unsignedReturnUrl(params.URL_OK, 'URL_OK', merchant.returnOrigins);
  const formCancel = unsignedReturnUrl(params.URL_CANCEL, 'URL_CANCEL', merchant.returnOrigins);
  const urls: ReturnUrls = { urlOk: payment.urlOk ?? formOk, urlCancel: payment.urlCancel ?? formCancel };
  const { obligation } = await registerObligation(deps, {
    merchant,
    packet,
    kind,
    terms: payment,
    defaultExpiryMs:
      kind === 'preauth' ? deps.config.COLLECT_PREAUTH_EXPIRY : deps.config.COLLECT_OBLIGATION_EXPIRY,
    // SAVECARD=1 (decision 0045): the approved card is saved for the merchant.
    details: 'saveCard' in payment && payment.saveCard ? { saveCard: '1' } : {},
  });
  if (obligation.kind !== kind) {
    throw new CollectProtocolError(
      'DUPLICATE_INVOICE',
      `INVOICE ${obligation.invoice} is registered already for another kind of payment`,
      'INVOICE',
    );
  }
  // A packet posted again (back button, refresh) shows where its obligation stands.
  if (obligation.status !== 'PENDING' || obligation.expiresAt.getTime() <= Date.now()) {
    return { type: 'closed', obligation, page: urls };
  }
  const token = randomBytes(32).toString('base64url');
  const expiresAt = Math.min(Date.now() + deps.config.COLLECT_CARD_PAGE_TTL, obligation.expiresAt.getTime());
  await deps.db.insert(collectCardPages).values({
    tokenHash: sha256(token),
    idn: obligation.idn,
    ...urls,
    expiresAt: new Date(expiresAt),
  });
  return { type: 'form', subject: await formSubject(deps, obligation), token, page: urls };
}

/** Marks the page used; false when another submission got there first. */
async function consume(
  deps: UseCaseDeps,
  page: CardPage,
  outcome: NonNullable<CardPage['outcome']>,
  authorisationId?: string,
): Promise<boolean> {
  const rows = await deps.db
    .update(collectCardPages)
    .set({ usedAt: new Date(), outcome, authorisationId: authorisationId ?? null })
    .where(and(eq(collectCardPages.tokenHash, page.tokenHash), isNull(collectCardPages.usedAt)))
    .returning({ tokenHash: collectCardPages.tokenHash });
  return rows.length > 0;
}

/** Moves the obligation through its workflow; a refusal (expired meanwhile, ...) is a protocol error. */
async function decide(
  deps: UseCaseDeps,
  obligation: Obligation,
  decision: CardPaymentDecision,
): Promise<void> {
  await updateObligation(deps, obligation, (handle) =>
    handle.executeUpdate(cardPaymentUpdate, { args: [decision] }),
  );
}

/** What the customer is shown once the acquirer has decided (now, or after the 3-D Secure page). */
async function decideAuthorisation(
  deps: UseCaseDeps,
  acquirer: CardAcquirer,
  obligation: Obligation,
  page: ReturnUrls,
  authorisation: Authorisation,
): Promise<CardPageOutcome> {
  if (authorisation.status === 'challenge_required' && authorisation.challengeUrl) {
    return { type: 'challenge', challengeUrl: authorisation.challengeUrl };
  }
  if (authorisation.status === 'authorised') {
    const saveCard = obligation.details.saveCard === '1';
    await decide(deps, obligation, {
      outcome: 'approved',
      acquirer: acquirer.id,
      authorisationId: authorisation.id,
      amountMinor: authorisation.amountMinor,
      ...(saveCard ? { saveCard } : {}),
    });
    if (page.urlOk) return { type: 'redirect', url: page.urlOk };
    const latest = (await findObligation(deps, { idn: obligation.idn })) ?? obligation;
    return {
      type: 'closed',
      obligation: latest,
      page,
      savedCard: saveCard ? await savedCardOf(deps, obligation.idn) : undefined,
    };
  }
  const reason = authorisation.declineReason ?? 'the card was not authorised';
  await decide(deps, obligation, { outcome: 'declined', reason });
  return { type: 'declined', obligation, page, reason };
}

/** What the acquirer's failure means to the customer: try again later, or nothing can be done here. */
function acquirerFailure(error: unknown): CardPageOutcome {
  if (error instanceof AcquirerUnavailable) return { type: 'error', code: 'ACQUIRER_UNAVAILABLE' };
  if (error instanceof AcquirerRefusal) {
    // Another page of the same obligation was submitted with another card first.
    if (error.code === 'idempotency_conflict') return { type: 'error', code: 'PAGE_USED' };
    return { type: 'error', code: 'ACQUIRER_REFUSED' };
  }
  throw error;
}

/** A card page's dependencies: the acquirer the configuration names unless another is given. */
export type CardPageDeps = UseCaseDeps & { acquirer?: CardAcquirer | undefined };

export interface CardPageSubmission {
  token: string;
  /** `pay` or `cancel`. */
  action: string;
  card: CardForm;
  /** Where the acquirer sends the customer back after a 3-D Secure page (GET /card/return). */
  challengeReturnUrl: string;
}

/**
 * The customer's pay or cancel of a card page. The card is authorised before the page is consumed: an
 * unreachable acquirer leaves the form usable, and the idempotency key (one per IDN) makes a repeated
 * submission the same authorisation. The page's token is consumed by the first submission the acquirer
 * decides.
 */
export async function submitCardPage(
  deps: CardPageDeps,
  submission: CardPageSubmission,
): Promise<CardPageOutcome> {
  const acquirer = deps.acquirer ?? acquirerFor(deps.config);
  const { token, card: form } = submission;
  if (!token) throw missingField('token');
  const [page] = await deps.db
    .select()
    .from(collectCardPages)
    .where(eq(collectCardPages.tokenHash, sha256(token)));
  if (!page) return { type: 'error', code: 'PAGE_NOT_FOUND' };
  const obligation = await findObligation(deps, { idn: page.idn });
  if (!obligation) return { type: 'error', code: 'PAGE_NOT_FOUND' };
  const urls = urlsOf(page);
  if (page.usedAt) return { type: 'used', obligation, page: urls };
  if (obligation.status !== 'PENDING' || obligation.expiresAt.getTime() <= Date.now()) {
    return { type: 'closed', obligation, page: urls };
  }
  if (page.expiresAt.getTime() <= Date.now()) return { type: 'page_expired', page: urls };

  if (submission.action === 'cancel') {
    if (!(await consume(deps, page, 'cancelled'))) return { type: 'error', code: 'PAGE_USED' };
    await decide(deps, obligation, { outcome: 'cancelled' });
    if (page.urlCancel) return { type: 'redirect', url: page.urlCancel };
    return { type: 'cancelled', invoice: obligation.invoice };
  }
  if (submission.action !== 'pay') throw badField('action', 'must be pay or cancel');

  const checked = validateCard(form, new Date());
  // Production never lets a published test card reach an acquirer (a sandbox one would approve it).
  const problems =
    checked.card && deps.config.PLATFORM_MODE === 'production' && isWellKnownTestCard(checked.card.number)
      ? { number: 'Test cards are not accepted: use a real card' }
      : checked.problems;
  if (problems || !checked.card) {
    // The page stays usable: the customer corrects the card and submits the same form again.
    return {
      type: 'form',
      subject: await formSubject(deps, obligation),
      token,
      page: urls,
      invalid: { values: form, problems: problems ?? {} },
    };
  }

  const { card } = checked;
  let authorisation: Authorisation;
  try {
    authorisation = await acquirer.authorise(
      {
        reference: obligation.idn,
        amountMinor: obligation.amountMinor,
        currency: obligation.currency,
        // SAVECARD=1: stored at the acquirer once approved (a zero amount is then a verification).
        ...(obligation.details.saveCard === '1' ? { storeCard: true } : {}),
        card: {
          number: card.number,
          expiryMonth: card.expiryMonth,
          expiryYear: card.expiryYear,
          cvv: form.cvv.trim(),
          ...(card.holder ? { holder: card.holder } : {}),
        },
        returnUrl: submission.challengeReturnUrl,
      },
      acquirerIdempotencyKey(obligation.idn, 'authorise'),
    );
  } catch (error) {
    return acquirerFailure(error);
  }
  const outcome =
    authorisation.status === 'challenge_required'
      ? 'challenge'
      : authorisation.status === 'authorised'
        ? 'paid'
        : 'declined';
  if (!(await consume(deps, page, outcome, authorisation.id))) return { type: 'error', code: 'PAGE_USED' };
  return decideAuthorisation(deps, acquirer, obligation, urls, authorisation);
}

/**
 * The customer's return from the acquirer's 3-D Secure page. The return only names the authorisation:
 * what happened is asked of the acquirer itself, so a forged or replayed return decides nothing the
 * acquirer did not decide.
 */
export async function returnFromChallenge(
  deps: CardPageDeps,
  { authorisationId }: { authorisationId: string | undefined },
): Promise<CardPageOutcome> {
  const acquirer = deps.acquirer ?? acquirerFor(deps.config);
  if (!authorisationId) throw missingField('authorisation');
  const [page] = await deps.db
    .select()
    .from(collectCardPages)
    .where(eq(collectCardPages.authorisationId, authorisationId))
    .limit(1);
  if (!page) return { type: 'error', code: 'PAGE_NOT_FOUND' };
  const obligation = await findObligation(deps, { idn: page.idn });
  if (!obligation) return { type: 'error', code: 'PAGE_NOT_FOUND' };
  const closed = async (latest: Obligation): Promise<CardPageOutcome> => ({
    type: 'closed',
    obligation: latest,
    page: urlsOf(page),
    savedCard: await savedCardOf(deps, obligation.idn),
  });
  // Returned again (reload, back button): where the payment stands.
  if (obligation.status !== 'PENDING') return closed(obligation);

  let authorisation: Authorisation;
  try {
    authorisation = await acquirer.get(authorisationId);
  } catch (error) {
    return acquirerFailure(error);
  }
  if (authorisation.reference !== obligation.idn) return { type: 'error', code: 'PAGE_NOT_FOUND' };
  try {
    return await decideAuthorisation(deps, acquirer, obligation, urlsOf(page), authorisation);
  } catch (error) {
    // Two returns at once: the other one decided; answer where the payment stands now.
    if (!(error instanceof CollectProtocolError)) throw error;
    return closed((await findObligation(deps, { idn: obligation.idn })) ?? obligation);
  }
}
