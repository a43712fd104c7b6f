import {
  CONSENT_STATUSES,
  type ConsentStatus,
  SCA_STATUSES,
  type ScaStatus,
} from '../../../domain/openbanking/xs2a.ts';

/** Reading a bank's JSON answers: objects, statuses and the `_links` Berlin Group puts in them. */

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const isScaStatus = (value: unknown): value is ScaStatus =>
  typeof value === 'string' && (SCA_STATUSES as readonly string[]).includes(value);

export const isConsentStatus = (value: unknown): value is ConsentStatus =>
  typeof value === 'string' && (CONSENT_STATUSES as readonly string[]).includes(value);

export const hrefOf = (links: unknown, name: string): string | undefined => {
  const link = isObject(links) ? links[name] : undefined;
  if (typeof link === 'string') return link;
  return isObject(link) && typeof link.href === 'string' ? link.href : undefined;
};

/** The first of the named links the answer carries (in the order given). */
export const firstLink = (links: unknown, names: readonly string[]) => {
  for (const name of names) {
    const href = hrefOf(links, name);
    if (href) return { name, href };
  }
  return undefined;
};

export const lastSegment = (href: string | undefined) => (href ? (href.split('/').pop() ?? null) : null);
