/**
 * Drives a sandbox bank's SCA page over plain HTTP, the way a browser would (for tests and
 * benchmarks that need no browser): GET the scaRedirect page, POST the login form, POST the decision,
 * and return the form the bank hands back to send the browser to the TPP. `submit: true` also POSTs
 * that form (the gateway's `/redirect/{app}/state/{state}`), as the page's script does.
 */

export interface ScaDriveOptions {
  psuId: string;
  password: string;
  decision: 'approve' | 'deny';
  /** POST the returned form to its action (default false). */
  submit?: boolean;
  fetch?: typeof fetch;
}

export interface HtmlForm {
  action: string;
  method: string;
  fields: Record<string, string>;
}

export interface ScaDriveResult {
  /** The form that returns the browser to the TPP (action = TPP-Redirect-URI or TPP-Nok-Redirect-URI). */
  returnForm: HtmlForm;
  /** The answer to submitting returnForm, when `submit` was set. */
  submitted?: Response;
}

const attribute = (tag: string, name: string) =>
  new RegExp(`\\s${name}="([^"]*)"`, 'i')
    .exec(tag)?.[1]
    ?.replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"');

/** The forms of a page with their hidden inputs (and the named submit buttons as `buttons`). */
export function formsOf(html: string): (HtmlForm & { buttons: Record<string, string>[] })[] {
  return [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)].map(([, head = '', body = '']) => {
    const fields: Record<string, string> = {};
    for (const [input] of body.matchAll(/<input\b[^>]*>/gi)) {
      const name = attribute(input, 'name');
      if (name && attribute(input, 'type') === 'hidden') fields[name] = attribute(input, 'value') ?? '';
    }
    const buttons = [...body.matchAll(/<button\b[^>]*>/gi)]
      .map(([button]) => ({ name: attribute(button, 'name') ?? '', value: attribute(button, 'value') ?? '' }))
      .filter((button) => button.name)
      .map((button) => ({ [button.name]: button.value }));
    return {
      action: attribute(head, 'action') ?? '',
      method: (attribute(head, 'method') ?? 'get').toLowerCase(),
      fields,
      buttons,
    };
  });
}

async function postForm(doFetch: typeof fetch, url: string, fields: Record<string, string>) {
  return doFetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
}

export async function driveSca(scaRedirectUrl: string, options: ScaDriveOptions): Promise<ScaDriveResult> {
  const doFetch = options.fetch ?? fetch;
  const loginPage = await doFetch(scaRedirectUrl);
  if (loginPage.status !== 200) throw new Error(`SCA page answered ${loginPage.status}`);
  const loginForm = formsOf(await loginPage.text())[0];
  if (!loginForm) throw new Error('no login form on the SCA page');
  const resolve = (action: string) => new URL(action, scaRedirectUrl).toString();

  const approval = await postForm(doFetch, resolve(loginForm.action), {
    ...loginForm.fields,
    psuId: options.psuId,
    password: options.password,
  });
  const approvalHtml = await approval.text();
  if (approval.status !== 200) throw new Error(`login answered ${approval.status}`);
  const decisionForm = formsOf(approvalHtml).find((form) => form.buttons.length > 0);
  if (!decisionForm) throw new Error('no approve/deny form after login');

  const returned = await postForm(doFetch, resolve(decisionForm.action), {
    ...decisionForm.fields,
    decision: options.decision,
  });
  // OAuth2 SCA (decision 0067): the bank redirects the browser to the TPP's redirect_uri (GET).
  const location = returned.headers.get('location');
  if ((returned.status === 302 || returned.status === 303) && location) {
    const returnForm: HtmlForm = { action: resolve(location), method: 'get', fields: {} };
    if (!options.submit) return { returnForm };
    return { returnForm, submitted: await doFetch(returnForm.action, { redirect: 'manual' }) };
  }
  if (returned.status !== 200) throw new Error(`decision answered ${returned.status}`);
  const form = formsOf(await returned.text())[0];
  if (!form) throw new Error('no return form after the decision');
  const returnForm: HtmlForm = { action: form.action, method: form.method, fields: form.fields };
  if (!options.submit) return { returnForm };
  return { returnForm, submitted: await postForm(doFetch, returnForm.action, returnForm.fields) };
}
