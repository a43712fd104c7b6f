import { ActivityFailure, proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { MessagingActivities } from '../../activities/messaging/index.ts';
import {
  type HlrLookupInput,
  type HlrLookupStatus,
  type HlrResult,
  hlrWorkflowId,
} from '../../domain/messaging/processes.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';
import { sendWebhook } from '../webhooks/send.ts';

const { recordHlrResult } = proxyActivities<MessagingActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** A lookup the provider never answered still gets a result, so the callback always arrives. */
function lookupFailed(input: HlrLookupInput): HlrResult {
  return {
    id: input.lookupId,
    error: 'lookup_failed',
    imsi: null,
    country: input.numberCountry,
    operatorId: null,
    mcc: null,
    mnc: null,
    ported: [],
  };
}

/** One asynchronous number lookup: ask the HLR → keep the result → POST it to callBackUrl. */
export async function hlrLookup(input: HlrLookupInput): Promise<HlrResult> {
  const { lookupNumber } = proxyActivities<MessagingActivities>({
    startToCloseTimeout: '15 seconds',
    scheduleToCloseTimeout: input.lookupTimeoutMs,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });

  let status: HlrLookupStatus = 'completed';
  let result: HlrResult;
  try {
    result = await lookupNumber({
      lookupId: input.lookupId,
      number: input.number,
      numberCountry: input.numberCountry,
    });
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    status = 'failed';
    result = lookupFailed(input);
  }
  upsertSearchAttributes([{ key: BusinessStatus, value: status }]);
  await recordHlrResult({ lookupId: input.lookupId, status, result });

  await sendWebhook({
    service: 'messaging',
    ownerId: input.accountId,
    url: input.callBackUrl,
    eventType: 'hlr.result',
    eventId: `${hlrWorkflowId(input.lookupId)}.result`,
    subjectId: input.lookupId,
    payload: { ...result },
  });
  return result;
}
