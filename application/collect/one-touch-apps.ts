import {
  createOneTouchApp,
  type NewOneTouchApp,
  type OneTouchApp,
  OneTouchAppExists,
} from '../../credentials/collect/one-touch-apps.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';

/** Creates a one-touch application (APPID + SECRET); a taken APPID is `one_touch_app_exists`. */
export async function createApp(deps: UseCaseDeps, input: NewOneTouchApp): Promise<OneTouchApp> {
  try {
    return await createOneTouchApp(deps.db, deps.config, input);
  } catch (error) {
    if (error instanceof OneTouchAppExists) throw Refusal.conflict('one_touch_app_exists', error.message);
    throw error;
  }
}
