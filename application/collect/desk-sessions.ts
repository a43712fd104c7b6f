import {
  createDeskOperator,
  type DeskOperator,
  DeskOperatorExists,
  deskOperatorOfSession,
  logInDeskOperator,
  type NewDeskOperator,
  revokeDeskSession,
} from '../../credentials/collect/desk-operators.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';

/**
 * Cash-desk operators and their sessions (decision 0030): the platform operator creates an operator;
 * the operator logs in (desk API or desk page), is recognised by the session token, logs out.
 */

export type { DeskOperator };

/** Creates a desk operator (office counter or ATM); a taken login is `desk_operator_exists`. */
export async function createOperator(
  deps: UseCaseDeps,
  input: NewDeskOperator,
): Promise<DeskOperator & { password: string }> {
  try {
    return await createDeskOperator(deps.db, input);
  } catch (error) {
    if (error instanceof DeskOperatorExists) throw Refusal.conflict('desk_operator_exists', error.message);
    throw error;
  }
}

/** A new session for the login and password, valid for COLLECT_DESK_SESSION_TTL; undefined when wrong. */
export function logIn(
  deps: UseCaseDeps,
  credentials: { login: string; password: string },
): Promise<{ operator: DeskOperator; token: string; expiresAt: Date } | undefined> {
  return logInDeskOperator(deps.db, credentials, deps.config.COLLECT_DESK_SESSION_TTL);
}

/** The operator of a live session token. */
export function operatorOfSession(
  deps: UseCaseDeps,
  { token }: { token: string },
): Promise<DeskOperator | undefined> {
  return deskOperatorOfSession(deps.db, token);
}

/** Ends the session: its token stops working at once. */
export function logOut(deps: UseCaseDeps, { token }: { token: string }): Promise<void> {
  return revokeDeskSession(deps.db, token);
}
