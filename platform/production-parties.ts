import type { BankDirectoryEntry } from '../domain/openbanking/bank-directory.ts';
import {
  checkOutboundAddress,
  checkOutboundUrl,
  type OutboundUrlPolicy,
  outboundUrlPolicy,
  portOf,
} from '../domain/outbound-url.ts';

/**
 * What PLATFORM_MODE=production refuses even when it is set explicitly (platform/config.ts): a
 * published sandbox credential or the sandbox's test collection account, and an outside party (carrier,
 * acquirer, bureau, bank directory, sibling service) at a loopback, private, link-local or other
 * special-purpose address, unless PRODUCTION_ALLOW_PRIVATE_PARTIES lists it. The addresses are judged
 * by the outbound-URL policy's rules (domain/outbound-url.ts, decision 0027); a name other than
 * `localhost` is not resolved here.
 */

export interface SandboxValue {
  readonly variable: string;
  readonly value: string;
  /** What the value is, for the refusal: "the sandbox acquirer's published key". */
  readonly what: string;
  /** The value's canonical spelling (an IBAN's electronic format); default: trimmed. */
  readonly normalise?: (text: string) => string;
}

export interface ProductionPartyRules {
  /** Variables holding an outside party's URL (any scheme: `smpp://` too). */
  readonly partyUrls: readonly string[];
  readonly sandboxValues: readonly SandboxValue[];
}

type Problem = { variable: string; message: string };

const ALLOW_LIST = 'PRODUCTION_ALLOW_PRIVATE_PARTIES';

/** `localhost` and its subdomains always mean loopback (RFC 6761), whatever a resolver says. */
const isLoopbackName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/**
 * Why a party URL may not be used in production, or null. A scheme other than http(s) (`smpp://`) is
 * read as http for its host, so that every spelling of an address (`2130706433`, `0x7f.1`) is
 * normalised as for the outbound-URL policy. Malformed URLs are the schema's to report.
 */
export function partyUrlRefusal(policy: OutboundUrlPolicy, text: string): string | null {
  let url: URL;
  try {
    const given = new URL(text);
    url = given.protocol === 'http:' || given.protocol === 'https:' ? given : new URL(`http://${given.host}`);
  } catch {
    return null;
  }
  const check = checkOutboundUrl(policy, url.href);
  if (!check.ok) return check.reason.replace("must not point inside the platform's network: ", '');
  const host = url.hostname.toLowerCase();
  if (!isLoopbackName(host)) return null;
  const refusal = checkOutboundAddress(policy, { host, port: portOf(url), address: '127.0.0.1' });
  return refusal === null ? null : `${host} is a loopback name`;
}

/** The problems of a production configuration's outside parties, each naming its variable. */
export function productionPartyProblems(
  env: NodeJS.ProcessEnv,
  rules: ProductionPartyRules,
  parsed: { allowList: readonly string[] | undefined; banks: readonly BankDirectoryEntry[] | undefined },
): Problem[] {
  const problems: Problem[] = [];
  for (const { variable, value, what, normalise = (text: string) => text.trim() } of rules.sandboxValues) {
    if (normalise(env[variable] ?? '') === value)
      problems.push({ variable, message: `is ${what}; production must not use it` });
  }
  const policy = outboundUrlPolicy({
    PLATFORM_MODE: 'production',
    OUTBOUND_URL_ALLOWLIST: parsed.allowList ?? [],
  });
  const refuse = (variable: string, reason: string) =>
    problems.push({
      variable,
      message: `must not name a loopback, private, link-local or other special-purpose address in production (${reason}); list it in ${ALLOW_LIST} if that party really runs there`,
    });
  for (const variable of rules.partyUrls) {
    const text = env[variable];
    const reason = text ? partyUrlRefusal(policy, text) : null;
    if (reason) refuse(variable, reason);
  }
  for (const bank of parsed.banks ?? []) {
    const reason = partyUrlRefusal(policy, bank.xs2aBaseUrl);
    if (reason) refuse('OPENBANKING_BANKS', `bank ${bank.code}: ${reason}`);
  }
  return problems;
}
