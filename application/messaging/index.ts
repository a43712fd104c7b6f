import { facade } from '../shared/facade.ts';
import { listCarriers, listRoutes, putCarrier, putRoute } from './carriers.ts';
import { checkChatAppSubscription, receiveChatAppNotification } from './chatapp-webhook.ts';
import { getHlrLookup, startHlrLookup } from './hlr.ts';
import {
  assignInboundNumber,
  listInboundNumbers,
  listOptOuts,
  receiveInboundSms,
  setInboundUrl,
} from './inbound.ts';
import { listNumbers, registerNumber, verifyNumber } from './numbers.ts';
import { uploadPriceList } from './price-lists.ts';
import { getDiallingPlan, getOperator, listNetworks, readRateCard } from './reference.ts';
import {
  confirmSenderId,
  decideSenderIdAsOperator,
  getSenderId,
  listSenderIds,
  registerSenderId,
  senderIdsWaitingForApproval,
} from './sender-id.ts';
import { startSmsHandover } from './sms/handover.ts';
import { getSms, listScheduledSms } from './sms/read.ts';
import { sendChatApp, sendSms } from './sms/send.ts';

/**
 * The messaging service's use cases (decision 0077), one name per process as in every other layer: `sms`
 * (an SMS or a chat-app message, one pipeline), `hlr`, `numbers`, `senderId`, price lists and reference
 * data, and the chat-app provider's webhook.
 */
export const messaging = facade('messaging', {
  // sms: POST /sms, POST /chatapp, GET /sms/{id}, GET /sms; the hand-over each API process runs
  sendSms,
  sendChatApp,
  getSms,
  listScheduledSms,
  startSmsHandover,
  // the chat-app provider's webhook (statuses of chat-app messages)
  checkChatAppSubscription,
  receiveChatAppNotification,
  // hlr
  startHlrLookup,
  getHlrLookup,
  // inbound: numbers the operator assigns (admin), the SMS handsets send to them, STOP / START
  assignInboundNumber,
  listInboundNumbers,
  setInboundUrl,
  listOptOuts,
  receiveInboundSms,
  // numbers (a `from` number proven by a code)
  registerNumber,
  verifyNumber,
  listNumbers,
  // sender-id: the account's side, then the operator's (admin)
  registerSenderId,
  confirmSenderId,
  getSenderId,
  listSenderIds,
  senderIdsWaitingForApproval,
  decideSenderIdAsOperator,
  // carriers and routes (admin, decision 0079)
  listCarriers,
  putCarrier,
  listRoutes,
  putRoute,
  // price lists (admin) and reference data
  uploadPriceList,
  readRateCard,
  listNetworks,
  getOperator,
  getDiallingPlan,
});

export type { CarrierView, RouteView } from './carriers.ts';
export type { ChatAppNotificationOutcome } from './chatapp-webhook.ts';
export type { AcceptedLookup, HlrLookupView } from './hlr.ts';
export type { InboundNumberView, OptOutView, ReceivedInboundSms } from './inbound.ts';
export type { SenderNumberRecord, SenderNumberStatus } from './numbers.ts';
export { DEFAULT_PRICE_LIST, type StoredPriceList } from './price-lists.ts';
export type { RateCard } from './reference.ts';
export {
  SENDER_ID_STATUSES,
  type SenderIdForOperator,
  type SenderIdRecord,
  type SenderIdStatus,
} from './sender-id.ts';
export type { SmsHandover } from './sms/handover.ts';
export type { MessageView, ScheduledMessage } from './sms/read.ts';
export type { AcceptedMessage, Channel, MessageRequest, SendMessageInput } from './sms/send.ts';
