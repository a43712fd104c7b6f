import { signedPacket } from './epay-client.ts';

/**
 * What a customer's browser does on the hosted card page, without a browser: the merchant's checkout
 * form posts the signed packet (PAGE=credit_paydirect pays, credit_preauth holds), the customer submits
 * the card form. For the browser itself see card-page.browser.test.ts.
 */

/** MM/YY of a card valid for two more years. */
export const cardExpiry = () => {
  const at = new Date();
  return `${String(at.getUTCMonth() + 1).padStart(2, '0')}/${String((at.getUTCFullYear() + 2) % 100).padStart(2, '0')}`;
};

/** A Luhn-valid card number that is no published test card (what a real customer types). */
export function realCardNumber(prefix = '4539'): string {
  let digits = prefix;
  while (digits.length < 15) digits += String(Math.floor(Math.random() * 10));
  for (let check = 0; check < 10; check++) {
    const candidate = `${digits}${check}`;
    let sum = 0;
    for (let i = 0; i < candidate.length; i++) {
      let digit = Number(candidate[candidate.length - 1 - i]);
      if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
      sum += digit;
    }
    if (sum % 10 === 0) return candidate;
  }
  throw new Error('unreachable');
}

/** Opens the card page for a packet; answers the page and its form token. */
export async function openCardPage(
  collectUrl: string,
  page: 'credit_paydirect' | 'credit_preauth',
  fields: Record<string, string>,
  secret: string,
) {
  const response = await fetch(`${collectUrl}/`, {
    method: 'POST',
    body: new URLSearchParams({ PAGE: page, ...signedPacket(fields, secret) }),
  });
  const html = await response.text();
  return { status: response.status, html, token: /name="token" value="([^"]+)"/.exec(html)?.[1] };
}

/** Submits the card form (without following the redirect). */
export async function submitCard(collectUrl: string, token: string, number: string) {
  const response = await fetch(`${collectUrl}/card/pay`, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({ token, action: 'pay', number, expiry: cardExpiry(), cvv: '123' }),
  });
  return { status: response.status, location: response.headers.get('location'), html: await response.text() };
}

/** The whole hold: the card page in hold mode with the same packet as REGISTER, paid with `number`. */
export async function holdWithCard(
  collectUrl: string,
  fields: Record<string, string>,
  secret: string,
  number = '4000000000000002',
) {
  const opened = await openCardPage(collectUrl, 'credit_preauth', fields, secret);
  if (!opened.token) throw new Error(`no card form (${opened.status}): ${opened.html.slice(0, 300)}`);
  return submitCard(collectUrl, opened.token, number);
}
