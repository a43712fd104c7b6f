import { patched } from '@temporalio/workflow';
import { OAUTH2_SCA_PATCH } from '../../../domain/openbanking/xs2a.ts';
import { xs2aFailureTypeOf } from '../bank-refusal.ts';
import { exchangeBankAuthorisationCode } from './activities.ts';
import type { ConsentProcess } from './state.ts';

/**
 * OAuth2 SCA (decision 0067): the code the callback brought (with our state) is exchanged for the
 * bank's tokens; the consent is valid at the bank only then. A refused code leaves it unauthorised (the
 * bank's status then ends it REJECTED).
 */
export async function exchangeOAuth2Code(consent: ConsentProcess): Promise<void> {
  const { oauth, callback } = consent;
  if (!(oauth && callback?.code && patched(OAUTH2_SCA_PATCH))) return;
  if (callback.oauthState !== oauth.state) return;
  try {
    await exchangeBankAuthorisationCode({ ...consent.ids, code: callback.code, oauth });
  } catch (error) {
    if (!xs2aFailureTypeOf(error)) throw error;
  }
}
