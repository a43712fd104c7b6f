import type { Operation } from '../shared/operation.ts';
import type { LendingEnv } from './context.ts';
import { dictionaryGetFilteredValuesOperation } from './dictionary/get-filtered-values.ts';
import { dictionaryGetValuesOperation } from './dictionary/get-values.ts';
import { settingsApplicationCoApplicantOperation } from './settings/application-co-applicant.ts';
import { vendorsGetSettingsOperation } from './vendors/get-settings.ts';
import { vendorsGetStoresOperation } from './vendors/get-stores.ts';
import { vendorsGetVendorsOperation } from './vendors/get-vendors.ts';
import { vendorsStoresMapOperation } from './vendors/stores-map.ts';

/** The tenant's reference data: dictionaries, application settings, vendors and stores (issue 21). */
export const referenceDataOperations: readonly Operation<LendingEnv>[] = [
  dictionaryGetValuesOperation,
  dictionaryGetFilteredValuesOperation,
  settingsApplicationCoApplicantOperation,
  vendorsGetSettingsOperation,
  vendorsGetVendorsOperation,
  vendorsGetStoresOperation,
  vendorsStoresMapOperation,
];
