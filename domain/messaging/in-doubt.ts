/**
 * What becomes of an SMS in doubt (decision 0084): its submit_sm went out (the wire mark was written)
 * and no submit_sm_resp was recorded before the worker died, so the carrier may or may not have it.
 * `resubmit` sends it again (at least once: a second copy is possible); `unknown` ends it with the final
 * status `unknown` without a second submit (at most once: it may never have left).
 */
export const IN_DOUBT_ACTIONS = ['resubmit', 'unknown'] as const;
export type InDoubtAction = (typeof IN_DOUBT_ACTIONS)[number];

/** The one place the choice is made: per message kind, from SMS_IN_DOUBT and SMS_IN_DOUBT_CODES. */
export interface InDoubtPolicy {
  /** Ordinary messages (SMS_IN_DOUBT, default `resubmit`: a campaign text twice beats none). */
  ordinary: InDoubtAction;
  /** Messages flagged `containsCode` (SMS_IN_DOUBT_CODES, default `unknown`: a code twice confuses; the client asks for a new one). */
  codes: InDoubtAction;
}

export function inDoubtAction(policy: InDoubtPolicy, message: { containsCode: boolean }): InDoubtAction {
  return message.containsCode ? policy.codes : policy.ordinary;
}

/** The `error` of a message ended `unknown`: what happened, in the message's own record and report. */
export const IN_DOUBT_ERROR =
  'in doubt: the submit_sm went out but its answer was lost in a crash; not sent again (SMS_IN_DOUBT)';
