import { apiCodeGetOperation } from './api-code-get.ts';
import { paymentNoregSendStatusOperation } from './api-payment-noreg-send-status.ts';
import { apiTokenGetOperation } from './api-token-get.ts';
import { apiTokenInvalidateOperation } from './api-token-invalidate.ts';
import { paymentCheckOperation } from './payment-check.ts';
import { paymentInitOperation } from './payment-init.ts';
import { paymentSendStatusOperation } from './payment-send-status.ts';

/**
 * One-touch payments (spec A.8) under /collect/xdev/api/...: device pairing and tokens, payments by a
 * paired device, and payments without registration. Answers follow ePay.bg's one-touch JSON shape
 * (`status` OK / ERR), validation failures too (see ./responses.ts and docs/collect.md).
 */
export const oneTouchOperations = [
  apiCodeGetOperation,
  apiTokenGetOperation,
  apiTokenInvalidateOperation,
  paymentCheckOperation,
  paymentInitOperation,
  paymentSendStatusOperation,
  paymentNoregSendStatusOperation,
];
