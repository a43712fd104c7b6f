import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes of the platform, registered on the embedded dev server at start and
 * documented for clusters (docs/operations.md). They make the Temporal Web UI searchable by business keys,
 * e.g. `PlatformService = "messaging" AND OwnerId = "acc_..."`.
 */
export const PlatformService = defineSearchAttributeKey('PlatformService', SearchAttributeType.KEYWORD);
export const OwnerId = defineSearchAttributeKey('OwnerId', SearchAttributeType.KEYWORD);
export const UserId = defineSearchAttributeKey('UserId', SearchAttributeType.KEYWORD);
export const TenantId = defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD);
export const LoanId = defineSearchAttributeKey('LoanId', SearchAttributeType.KEYWORD);
export const BankId = defineSearchAttributeKey('BankId', SearchAttributeType.KEYWORD);
export const BusinessStatus = defineSearchAttributeKey('BusinessStatus', SearchAttributeType.KEYWORD);

export const platformSearchAttributes = [
  PlatformService,
  OwnerId,
  UserId,
  TenantId,
  LoanId,
  BankId,
  BusinessStatus,
];
