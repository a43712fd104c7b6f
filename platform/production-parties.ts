import dns from 'node:dns';
import { isIP } from 'node:net';
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
 * by the outbound-URL policy's rules (domain/outbound-url.ts, decision 0027). `localhost` and its
 * subdomains (with or without the root's trailing dot) are loopback by name; every other name is resolved
 * at start-up (resolvedPartyProblems, called by loadConfigAtStartOrExit in platform/config.ts) and refused
 * when any of its addresses is.
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

/**
 * `localhost` and its subdomains always mean loopback (RFC 6761), whatever a resolver says; also written
 * fully qualified, with the root's trailing dot (`localhost.`).
 */
function isLoopbackName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * A party URL as http(s), for its host: a scheme other than http(s) (`smpp://`) is read as http, so that
 * every spelling of an address (`2130706433`, `0x7f.1`) is normalised as for the outbound-URL policy.
 * Null when malformed (the schema's to report).
 */
function asHttpUrl(text: string): URL | null {
  try {
    const given = new URL(text);
    return given.protocol === 'http:' || given.protocol === 'https:'
      ? given
      : new URL(`http://${given.host}`);
  } catch {
    return null;
  }
}

/** Why a party URL may not be used in production, or null (a name other than a loopback one passes). */
export function partyUrlRefusal(policy: OutboundUrlPolicy, text: string): string | null {
  const url = asHttpUrl(text);
  if (!url) return null;
  const check = checkOutboundUrl(policy, url.href);
  if (!check.ok) return check.reason.replace("must not point inside the platform's network: ", '');
  const host = url.hostname.toLowerCase();
  if (!isLoopbackName(host)) return null;
  const refusal = checkOutboundAddress(policy, { host, port: portOf(url), address: '127.0.0.1' });
  return refusal === null ? null : `${host} is a loopback name`;
}

/** What production's party rules are given besides the environment: the parsed allow-list and banks. */
export interface ParsedParties {
  readonly allowList: readonly string[] | undefined;
  readonly banks: readonly BankDirectoryEntry[] | undefined;
}

const productionPolicy = (parsed: ParsedParties) =>
  outboundUrlPolicy({ PLATFORM_MODE: 'production', OUTBOUND_URL_ALLOWLIST: parsed.allowList ?? [] });

const refusal = (variable: string, reason: string): Problem => ({
  variable,
  message: `must not name a loopback, private, link-local or other special-purpose address in production (${reason}); list it in ${ALLOW_LIST} if that party really runs there`,
});

/** Every party URL of a configuration: the variable it is in, `bank <code>: ` for a bank's, the URL. */
function partyUrls(env: NodeJS.ProcessEnv, rules: ProductionPartyRules, parsed: ParsedParties) {
  const urls: { variable: string; prefix: string; text: string }[] = [];
  for (const variable of rules.partyUrls) {
    const text = env[variable];
    if (text) urls.push({ variable, prefix: '', text });
  }
  for (const bank of parsed.banks ?? [])
    urls.push({ variable: 'OPENBANKING_BANKS', prefix: `bank ${bank.code}: `, text: bank.xs2aBaseUrl });
  return urls;
}

/** The problems of a production configuration's outside parties, each naming its variable. */
export function productionPartyProblems(
  env: NodeJS.ProcessEnv,
  rules: ProductionPartyRules,
  parsed: ParsedParties,
): Problem[] {
  const problems: Problem[] = [];
  for (const { variable, value, what, normalise = (text: string) => text.trim() } of rules.sandboxValues) {
    if (normalise(env[variable] ?? '') === value)
      problems.push({ variable, message: `is ${what}; production must not use it` });
  }
  const policy = productionPolicy(parsed);
  for (const { variable, prefix, text } of partyUrls(env, rules, parsed)) {
    const reason = partyUrlRefusal(policy, text);
    if (reason) problems.push(refusal(variable, `${prefix}${reason}`));
  }
  return problems;
}

/** Every address a name resolves to (the system resolver, as the connections to the party will). */
export type ResolveAll = (hostname: string) => Promise<readonly { address: string }[]>;

const systemResolve: ResolveAll = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/** How long start-up waits for one name to resolve. */
const RESOLVE_TIMEOUT_MS = 10_000;

function resolveWithin(resolve: ResolveAll, host: string): Promise<readonly { address: string }[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer in ${RESOLVE_TIMEOUT_MS / 1000} s`)),
      RESOLVE_TIMEOUT_MS,
    );
  });
  return Promise.race([resolve(host), timeout]).finally(() => clearTimeout(timer));
}

/**
 * Start-up's check of the party URLs that name a host (production only): each name is resolved and
 * refused when ANY of its addresses is loopback, private, link-local or otherwise special-purpose and not
 * in the allow-list (a name that answers with a public and a private address is refused: connections
 * may take either). A name that does not resolve now is not refused (its party may not be up yet) but
 * warned about: its addresses could not be checked.
 */
export async function resolvedPartyProblems(
  env: NodeJS.ProcessEnv,
  rules: ProductionPartyRules,
  parsed: ParsedParties,
  resolve: ResolveAll = systemResolve,
): Promise<{ problems: Problem[]; warnings: Problem[] }> {
  const policy = productionPolicy(parsed);
  const checks = partyUrls(env, rules, parsed).map(async ({ variable, prefix, text }) => {
    const url = asHttpUrl(text);
    const host = url?.hostname.toLowerCase() ?? '';
    // Literals and loopback names are judged without a resolver (productionPartyProblems).
    if (!url || host === '' || host.startsWith('[') || isIP(host) !== 0 || isLoopbackName(host)) return {};
    let addresses: readonly { address: string }[];
    try {
      addresses = await resolveWithin(resolve, host);
    } catch (error) {
      const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      return { warning: { variable, message: `${prefix}${host} does not resolve (${why}): not checked` } };
    }
    const refused = new Set(
      addresses
        .map(({ address }) => checkOutboundAddress(policy, { host, port: portOf(url), address }))
        .filter((reason) => reason !== null),
    );
    if (refused.size === 0) return {};
    return { problem: refusal(variable, `${prefix}name ${host}: ${[...refused].join('; ')}`) };
  });
  const outcomes: { problem?: Problem; warning?: Problem }[] = await Promise.all(checks);
  const problems = outcomes.flatMap((outcome) => (outcome.problem ? [outcome.problem] : []));
  const warnings = outcomes.flatMap((outcome) => (outcome.warning ? [outcome.warning] : []));
  return { problems, warnings };
}
