import { randomBytes } from 'node:crypto';
import { ActivityFailure, ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { and, asc, eq, isNull } from 'drizzle-orm';
import {
  type CardPageForm,
  cardSavingForm,
  collectGatewayUrl,
} from '../../connectors/lending/collect-gateway.ts';
import { findChargeableCard, sealCardToken } from '../../credentials/lending/cards.ts';
import type { Database } from '../../db/client.ts';
import { lendingCards } from '../../db/schema/lending-payment-options.ts';
import { cardInvoice } from '../../domain/lending/repayment-submissions.ts';
import {
  COLLECT_GATEWAY_UNAVAILABLE,
  cardDeletionWorkflowId,
} from '../../domain/lending/sibling-processes.ts';
import { OwnerId, PlatformService, TenantId } from '../../domain/search-attributes.ts';
import type { Config } from '../../platform/config.ts';
import type { lendingCardDeletion } from '../../workflows/lending/card-deletion.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import { requireCollectMerchant } from './collect-merchants.ts';
import {
  lockCustomerMethods,
  type MethodOwner,
  makeDefaultMethod,
  promoteOldestMethod,
} from './payment-method-defaults.ts';
import { requireTenantSiteUrl } from './tenant-site.ts';

/**
 * A customer's cards as payment methods (decision 0045). A card is created `pending` with the form of
 * the collection gateway's card page that saves it (a zero-amount SAVECARD verification, INVOICE
 * `LC-<cardId>`); the gateway's notification makes it `active` with the gateway's token (sealed) and
 * its display data, or `failed`. Lending never sees a card number. Deleting forgets the card at the
 * gateway first, then keeps the row without its token.
 */

type CardRow = typeof lendingCards.$inferSelect;
type KeyConfig = Pick<Config, 'LENDING_DATA_KEY' | 'PLATFORM_MODE'>;

/** A card id: `card_` and 16 hex digits (random, 64 bits). */
export const newCardId = () => `card_${randomBytes(8).toString('hex')}`;

/** A card as the API answers it (api/lending/payment-option-schemas.ts). */
export interface CardView {
  cardId: string;
  status: CardRow['status'];
  isDefault: boolean;
  nickname: string | null;
  brand: string | null;
  last4: string | null;
  expiryMonth: number | null;
  expiryYear: number | null;
  reason: string | null;
  createdAt: string;
  activatedAt: string | null;
}

export interface NewCard {
  isDefault?: boolean | undefined;
  nickname?: string | undefined;
  /** Where the card page sends the customer back; on a site domain of the tenant. */
  returnUrl?: string | undefined;
}

export interface CardChange {
  isDefault?: boolean | undefined;
  nickname?: string | null | undefined;
}

const cardOf = (row: CardRow): CardView => ({
  cardId: row.id,
  status: row.status,
  isDefault: row.isDefault,
  nickname: row.nickname,
  brand: row.brand,
  last4: row.last4,
  expiryMonth: row.expiryMonth,
  expiryYear: row.expiryYear,
  reason: row.reason,
  createdAt: row.createdAt.toISOString(),
  activatedAt: row.activatedAt?.toISOString() ?? null,
});

const liveCard = ({ tenantId, customerId }: MethodOwner, cardId: string) =>
  and(
    eq(lendingCards.id, cardId),
    eq(lendingCards.tenantId, tenantId),
    eq(lendingCards.customerId, customerId),
    isNull(lendingCards.deletedAt),
  );

export async function listCards(
  { db }: Pick<UseCaseDeps, 'db'>,
  { tenantId, customerId }: MethodOwner,
): Promise<CardView[]> {
  const rows = await db
    .select()
    .from(lendingCards)
    .where(
      and(
        eq(lendingCards.tenantId, tenantId),
        eq(lendingCards.customerId, customerId),
        isNull(lendingCards.deletedAt),
      ),
    )
    .orderBy(asc(lendingCards.createdAt), asc(lendingCards.id));
  return rows.map(cardOf);
}

/** A live card of the customer (404 for another's, a deleted one, or none). */
async function ownCard(db: Pick<Database, 'select'>, owner: MethodOwner, cardId: string): Promise<CardRow> {
  const [row] = await db.select().from(lendingCards).where(liveCard(owner, cardId)).limit(1);
  if (!row) throw Refusal.notFound('Card');
  return row;
}

/** A pending card and the card page's form that saves it. */
export async function createCard(
  { db, config }: Pick<UseCaseDeps, 'db' | 'config'>,
  { tenant, customerId, ...input }: { tenant: { id: string; name: string }; customerId: string } & NewCard,
): Promise<{ card: CardView; cardPage: CardPageForm & { method: 'POST' } }> {
  const merchant = await requireCollectMerchant(db, config, tenant.id);
  if (input.returnUrl) await requireTenantSiteUrl(db, config, tenant.id, 'returnUrl', input.returnUrl);
  const [row] = await db
    .insert(lendingCards)
    .values({
      id: newCardId(),
      tenantId: tenant.id,
      customerId,
      status: 'pending',
      wantsDefault: input.isDefault === true,
      nickname: input.nickname ?? null,
    })
    .returning();
  const card = row as CardRow;
  const form = cardSavingForm(collectGatewayUrl(config), {
    min: merchant.min,
    secret: merchant.secret,
    invoice: cardInvoice(card.id),
    description: `Card verification for ${tenant.name}`,
    returnUrl: input.returnUrl,
  });
  return { card: cardOf(card), cardPage: { ...form, method: 'POST' } };
}

/** PUT Cards/{cardId}: the nickname, and whether it is the default method. */
export async function updateCard(
  { db }: Pick<UseCaseDeps, 'db'>,
  { owner, cardId, change }: { owner: MethodOwner; cardId: string; change: CardChange },
): Promise<CardView> {
  await db.transaction(async (tx) => {
    await lockCustomerMethods(tx, owner);
    const card = await ownCard(tx, owner, cardId);
    if (change.nickname !== undefined)
      await tx.update(lendingCards).set({ nickname: change.nickname }).where(eq(lendingCards.id, cardId));
    if (change.isDefault === undefined) return;
    if (card.status !== 'active') {
      // Not a method yet (pending) or never (failed): remembered for when it is saved.
      await tx
        .update(lendingCards)
        .set({ wantsDefault: change.isDefault })
        .where(eq(lendingCards.id, cardId));
    } else if (change.isDefault) {
      await makeDefaultMethod(tx, owner, cardId);
    } else if (card.isDefault && !(await promoteOldestMethod(tx, owner, cardId))) {
      throw Refusal.conflict(
        'default_method_required',
        'The card is the customer’s only payment method: it stays the default',
      );
    }
  });
  return cardOf(await ownCard(db, owner, cardId));
}

/** SetDefaultMethod of a card: only an active one (409 `card_not_active`). */
export async function setDefaultCard(db: Database, owner: MethodOwner, cardId: string): Promise<CardView> {
  await db.transaction(async (tx) => {
    await lockCustomerMethods(tx, owner);
    const card = await ownCard(tx, owner, cardId);
    if (card.status !== 'active')
      throw Refusal.conflict(
        'card_not_active',
        `The card is ${card.status}: only a saved card can be the default`,
      );
    await makeDefaultMethod(tx, owner, cardId);
  });
  return cardOf(await ownCard(db, owner, cardId));
}

/** The refusal of a card the gateway could not forget, or undefined for a failure that is not one. */
function forgetRefusal(error: unknown): Refusal | undefined {
  let cause: unknown = error;
  while (cause instanceof WorkflowFailedError || cause instanceof ActivityFailure) cause = cause.cause;
  if (!(cause instanceof ApplicationFailure) || cause.type !== COLLECT_GATEWAY_UNAVAILABLE) return undefined;
  return new Refusal(
    503,
    'collect_gateway_unavailable',
    `The card could not be forgotten now: ${cause.message}`,
  );
}

/** Runs the card's deletion workflow: the gateway forgets the card's token (decision 0047). */
async function forgetCard(
  deps: Pick<UseCaseDeps, 'temporal' | 'config'>,
  owner: MethodOwner,
  cardId: string,
) {
  try {
    await deps.temporal.workflow.execute<typeof lendingCardDeletion>('lendingCardDeletion', {
      workflowId: cardDeletionWorkflowId(owner.tenantId, cardId),
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      // A second DeleteMethod of the same card while one runs waits for the same step.
      workflowIdConflictPolicy: 'USE_EXISTING',
      args: [{ tenantId: owner.tenantId, customerId: owner.customerId, cardId }],
      typedSearchAttributes: [
        { key: PlatformService, value: 'lending' },
        { key: TenantId, value: owner.tenantId },
        { key: OwnerId, value: owner.customerId },
      ],
      staticSummary: `Card ${cardId} forgotten at the collection gateway`,
    });
  } catch (error) {
    throw forgetRefusal(error) ?? error;
  }
}

/**
 * DeleteMethod of a card: forgotten at the gateway first by the card's deletion workflow (503
 * `collect_gateway_unavailable` when it cannot be reached: nothing changes, so a card lending no longer
 * lists is never chargeable), then deleted here; a deleted default passes to the oldest remaining method.
 */
export async function deleteCard(
  deps: Pick<UseCaseDeps, 'db' | 'temporal' | 'config'>,
  { owner, cardId }: { owner: MethodOwner; cardId: string },
): Promise<void> {
  const { db } = deps;
  const card = await ownCard(db, owner, cardId);
  if (card.tokenSealed) await forgetCard(deps, owner, cardId);
  await db.transaction(async (tx) => {
    await lockCustomerMethods(tx, owner);
    const [deleted] = await tx
      .update(lendingCards)
      .set({
        deletedAt: new Date(),
        updatedAt: new Date(),
        tokenSealed: null,
        isDefault: false,
        wantsDefault: false,
      })
      .where(liveCard(owner, cardId))
      .returning({ id: lendingCards.id });
    if (!deleted) throw Refusal.notFound('Card');
    await promoteOldestMethod(tx, owner);
  });
}

/** What the gateway's notification of a card's verification did. */
export type CardNotice = 'saved' | 'failed' | 'unchanged' | 'unknown';

/**
 * The gateway saved the card (STATUS=SAVED, or PAID, with CARD_TOKEN): the pending card becomes active,
 * and the default method when it was asked to be or the customer has none. A card already decided (a
 * repeated notification) or deleted is left as it is.
 */
export async function cardSaved(
  db: Database,
  config: KeyConfig,
  tenantId: string,
  cardId: string,
  saved: { token: string; brand: string; last4: string; expiry: string },
): Promise<CardNotice> {
  const [, month, year] = /^(\d{1,2})\/(\d{2,4})$/.exec(saved.expiry) ?? [];
  return db.transaction(async (tx) => {
    const [card] = await tx
      .select()
      .from(lendingCards)
      .where(and(eq(lendingCards.id, cardId), eq(lendingCards.tenantId, tenantId)));
    if (!card) return 'unknown';
    const owner = { tenantId, customerId: card.customerId };
    await lockCustomerMethods(tx, owner);
    const now = new Date();
    const [activated] = await tx
      .update(lendingCards)
      .set({
        status: 'active',
        tokenSealed: sealCardToken(config, cardId, saved.token),
        brand: saved.brand || null,
        last4: saved.last4 || null,
        expiryMonth: month ? Number(month) : null,
        expiryYear: year ? Number(year.length === 2 ? `20${year}` : year) : null,
        activatedAt: now,
        updatedAt: now,
      })
      .where(
        and(eq(lendingCards.id, cardId), eq(lendingCards.status, 'pending'), isNull(lendingCards.deletedAt)),
      )
      .returning();
    if (!activated) return 'unchanged';
    // The first method of the customer, or one asked to be the default, is the default.
    if (activated.wantsDefault || !(await promoteOldestMethod(tx, owner, cardId)))
      await makeDefaultMethod(tx, owner, cardId);
    return 'saved';
  });
}

/** The card page's verification was declined or expired: the pending card fails with the reason. */
export async function cardFailed(
  db: Database,
  tenantId: string,
  cardId: string,
  reason: string,
): Promise<CardNotice> {
  const [card] = await db
    .select({ status: lendingCards.status })
    .from(lendingCards)
    .where(and(eq(lendingCards.id, cardId), eq(lendingCards.tenantId, tenantId)));
  if (!card) return 'unknown';
  const [failed] = await db
    .update(lendingCards)
    .set({ status: 'failed', reason, updatedAt: new Date() })
    .where(and(eq(lendingCards.id, cardId), eq(lendingCards.status, 'pending')))
    .returning({ id: lendingCards.id });
  return failed ? 'failed' : 'unchanged';
}

/** The card SubmitRepayment charges: the customer's active card named (404, 409 `card_not_active`), else their default card (409 `no_card`). */
export async function cardToCharge(
  db: Database,
  owner: MethodOwner,
  cardId: string | undefined,
): Promise<string> {
  if (cardId) {
    const card = await ownCard(db, owner, cardId);
    if (card.status !== 'active')
      throw Refusal.conflict(
        'card_not_active',
        `The card is ${card.status}: only a saved card can be charged`,
      );
    return card.id;
  }
  const chosen = await findChargeableCard(db, owner.tenantId, owner.customerId, null);
  if (!chosen) throw Refusal.conflict('no_card', 'The customer has no saved card to charge');
  return chosen.cardId;
}
