import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../platform/config.ts';
import type { RunningStack } from '../platform/running-stack.ts';

/**
 * `npm run admin` while a platform runs on the same DATA_DIR (decision 0080): each command is the
 * admin API's request of the same name, sent to the running platform (DATA_DIR/stack.json), which
 * owns the embedded database; the CLI opens nothing itself. The answer is printed as the command
 * prints it when it runs on the database directly.
 */

export type AdminValues = Record<string, string | boolean | string[] | undefined>;
export interface AdminArgs {
  command: string;
  /** The arguments after the command (files, the sweep's age). */
  rest: string[];
  values: AdminValues;
}

/** The sandbox tenants' reference data (docs/lending.md#dictionaries-settings-vendors). */
export const SEED_FILE = 'datasets/lending-reference-data.json';

/** What to keep, printed after a command that answers a secret once (both ways the CLI runs). */
export const ONCE_NOTES: Record<string, string> = {
  'messaging:token': 'Keep the token now: only its hash is stored.',
  'collect:merchant': 'Keep the secret now: it is stored encrypted and never shown again.',
  'collect:desk-operator': 'Keep the password now: only its scrypt hash is stored.',
  'openbanking:agent': 'Keep the hashes now: only their digests are stored.',
  'openbanking:admin-hash': 'Keep the hash now: only its digest is stored.',
  'lending:api-key': 'Keep the key now: only its digest is stored.',
};

interface AdminCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Under the admin API's base; segments taken from arguments are encoded by `at`. */
  path: string;
  json?: unknown;
  /** A body sent as is, with its content type (a price list's CSV), or a form (a statement file). */
  raw?: { type: string; body: string } | { form: FormData };
  /** What to print of the answer: a field of it, as a table, or as text (a 204's fixed line). */
  print?: { field?: string; table?: boolean; text?: (answer: Record<string, unknown>) => string };
}

export class AdminUsageError extends Error {}

const text = (values: AdminValues, name: string) => {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
};
const list = (values: AdminValues, name: string) => {
  const value = values[name];
  return Array.isArray(value) ? value : undefined;
};
/** The named options, or a usage error naming those missing. */
function required(values: AdminValues, ...names: string[]): string[] {
  const missing = names.filter((name) => !text(values, name)?.trim());
  if (missing.length > 0)
    throw new AdminUsageError(`${missing.map((name) => `--${name}`).join(', ')} required`);
  return names.map((name) => text(values, name)!.trim());
}
const at = (strings: TemplateStringsArray, ...parts: string[]) =>
  strings.reduce(
    (joined, piece, index) =>
      joined + piece + (index < parts.length ? encodeURIComponent(parts[index]!) : ''),
    '',
  );
const jsonFile = async (file: string) => JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
function fileArgument(args: AdminArgs, what: string): string {
  const file = args.rest[0];
  if (!file) throw new AdminUsageError(`${what} is required`);
  return file;
}

/** What `lending:files-sweep` prints. */
export const sweptLine = (removed: string[]) =>
  `${removed.length} orphan content(s) removed${removed.length ? `:\n  ${removed.join('\n  ')}` : ''}`;

const CALLS: Record<string, (args: AdminArgs) => AdminCall | Promise<AdminCall>> = {
  'messaging:token': ({ values }) => {
    const account = text(values, 'account');
    if (account)
      return {
        method: 'POST',
        path: at`/messaging/accounts/${account}/tokens`,
        json: { label: text(values, 'label') ?? 'admin' },
      };
    const [name] = required(values, 'name');
    return { method: 'POST', path: '/messaging/accounts', json: { name } };
  },
  'messaging:revoke': ({ values }) => {
    const [tokenId] = required(values, 'token-id');
    return { method: 'DELETE', path: at`/messaging/tokens/${tokenId!}`, print: { text: () => 'revoked' } };
  },
  'messaging:sender-ids': () => ({ method: 'GET', path: '/messaging/sender-ids', print: { field: 'items' } }),
  'messaging:approve-sender-id': ({ values }) => senderIdDecision(values, 'approve'),
  'messaging:reject-sender-id': ({ values }) => senderIdDecision(values, 'reject'),
  'messaging:price-list': async (args) => {
    const account = text(args.values, 'account');
    if (!args.rest[0] || !!account === !!args.values.default)
      throw new AdminUsageError('--account <id> or --default, and the CSV file, are required');
    return {
      method: 'PUT',
      path: at`/messaging/price-lists/${account ?? 'default'}`,
      raw: { type: 'text/csv', body: await readFile(args.rest[0], 'utf8') },
    };
  },
  'messaging:number': ({ values }) => {
    const [account, number] = required(values, 'account', 'number');
    return {
      method: 'POST',
      path: at`/messaging/accounts/${account!}/numbers`,
      json: { number, inboundUrl: text(values, 'inbound-url') },
    };
  },
  'messaging:carrier': async (args) => {
    const [name] = required(args.values, 'name');
    const json = await jsonFile(fileArgument(args, 'the carrier JSON file'));
    return { method: 'PUT', path: at`/messaging/carriers/${name!}`, json };
  },
  'messaging:carriers': () => ({ method: 'GET', path: '/messaging/carriers', print: { field: 'items' } }),
  'messaging:route': async (args) => {
    const [name] = required(args.values, 'name');
    const json = await jsonFile(fileArgument(args, 'the route JSON file'));
    return { method: 'PUT', path: at`/messaging/routes/${name!}`, json };
  },
  'messaging:routes': () => ({ method: 'GET', path: '/messaging/routes', print: { field: 'items' } }),
  'collect:merchant': ({ values }) => {
    const [name] = required(values, 'name');
    return {
      method: 'POST',
      path: '/collect/merchants',
      json: {
        name,
        min: text(values, 'min'),
        notifyUrl: text(values, 'notify-url'),
        billingUrl: text(values, 'billing-url'),
        billingIdnPrefix: text(values, 'billing-prefix'),
        returnOrigins: list(values, 'return-origin'),
      },
    };
  },
  'collect:return-origins': ({ values }) => {
    const [min] = required(values, 'min');
    return {
      method: 'PUT',
      path: at`/collect/merchants/${min!}/return-origins`,
      json: { returnOrigins: list(values, 'return-origin') ?? [] },
    };
  },
  'collect:notify-url': ({ values }) => {
    const [min] = required(values, 'min');
    return {
      method: 'PATCH',
      path: at`/collect/merchants/${min!}`,
      json: { notifyUrl: text(values, 'notify-url') ?? null },
    };
  },
  'collect:desk-operator': ({ values }) => {
    const [login, name, officeId] = required(values, 'login', 'name', 'office-id');
    return {
      method: 'POST',
      path: '/collect/desk-operators',
      json: {
        login,
        name,
        officeId,
        officeKind: text(values, 'office-kind') ?? 'office',
        password: text(values, 'password'),
      },
    };
  },
  'collect:balances': ({ values }) => {
    const query = new URLSearchParams();
    for (const name of ['kind', 'currency']) if (text(values, name)) query.set(name, text(values, name)!);
    return {
      method: 'GET',
      path: `/collect/ledger/accounts${query.size ? `?${query}` : ''}`,
      print: { field: 'accounts', table: true },
    };
  },
  'collect:statement': async (args) => {
    const file = fileArgument(args, 'the statement file');
    const form = new FormData();
    // A form part keeps the file's name, which the import records.
    form.set('file', new Blob([await readFile(file)], { type: 'application/xml' }), path.basename(file));
    return { method: 'POST', path: '/collect/statements', raw: { form } };
  },
  'openbanking:agent': ({ values }) => {
    const [name] = required(values, 'name');
    return { method: 'POST', path: '/openbanking/agents', json: { name, email: text(values, 'email') } };
  },
  'openbanking:admin-hash': ({ values }) => ({
    method: 'POST',
    path: '/openbanking/admin-hashes',
    json: { label: text(values, 'label') ?? 'admin' },
  }),
  'openbanking:rotate-keys': () => ({ method: 'POST', path: '/openbanking/signing-keys/rotate' }),
  'lending:tenant': ({ values }) => {
    const [name] = required(values, 'name');
    return {
      method: 'POST',
      path: '/lending/tenants',
      json: {
        name,
        siteDomains: list(values, 'domain'),
        stagingSiteDomains: list(values, 'staging-domain'),
        features: {
          stateManagement: values['state-management'] === true || undefined,
          multipleOffers: values['multiple-offers'] === true || undefined,
        },
        states: text(values, 'states')
          ?.split(',')
          .map((state) => state.trim()),
      },
    };
  },
  'lending:api-key': ({ values }) => {
    const [tenant, level] = required(values, 'tenant', 'level');
    const expires = text(values, 'expires');
    const expiresAt = expires ? new Date(expires) : undefined;
    if (expiresAt && Number.isNaN(expiresAt.getTime())) throw new AdminUsageError('--expires: an ISO date');
    return {
      method: 'POST',
      path: at`/lending/tenants/${tenant!}/api-keys`,
      json: {
        permissions: level!.split(',').map((part) => part.trim()),
        label: text(values, 'label'),
        expiresAt: expiresAt?.toISOString(),
      },
    };
  },
  'lending:revoke-key': ({ values }) => {
    const [keyId] = required(values, 'key-id');
    return { method: 'DELETE', path: at`/lending/api-keys/${keyId!}`, print: { text: () => 'revoked' } };
  },
  'lending:unlock-login': ({ values }) => {
    const [tenant, login] = required(values, 'tenant', 'login');
    return { method: 'POST', path: at`/lending/tenants/${tenant!}/login-unlocks`, json: { login } };
  },
  'lending:credit-product': async (args) => {
    const [tenant] = required(args.values, 'tenant');
    const { name, ...product } = await jsonFile(fileArgument(args, 'the product file'));
    if (typeof name !== 'string') throw new AdminUsageError('the product file names no `name`');
    return { method: 'PUT', path: at`/lending/tenants/${tenant!}/credit-products/${name}`, json: product };
  },
  'lending:credit-products': ({ values }) => {
    const [tenant] = required(values, 'tenant');
    return {
      method: 'GET',
      path: at`/lending/tenants/${tenant!}/credit-products`,
      print: { field: 'creditProducts' },
    };
  },
  'lending:files-sweep': ({ rest }) => ({
    method: 'POST',
    path: '/lending/files/sweep',
    json: { olderThan: rest[0] ?? '1h' },
    print: { text: (answer) => sweptLine(answer.removed as string[]) },
  }),
  'lending:collect-merchant': ({ values }) => {
    const [tenant, min, secret] = required(values, 'tenant', 'min', 'secret');
    return { method: 'PUT', path: at`/lending/tenants/${tenant!}/collect-merchant`, json: { min, secret } };
  },
  'lending:reference-data': async (args) => {
    const [tenant] = required(args.values, 'tenant');
    const file = args.rest[0];
    return file
      ? { method: 'POST', path: at`/lending/tenants/${tenant!}/reference-data`, json: await jsonFile(file) }
      : { method: 'GET', path: at`/lending/tenants/${tenant!}/reference-data` };
  },
  'lending:seed-reference-data': async (args) => {
    const [tenant] = required(args.values, 'tenant');
    return {
      method: 'POST',
      path: at`/lending/tenants/${tenant!}/reference-data`,
      json: await jsonFile(args.rest[0] ?? SEED_FILE),
    };
  },
  'lending:delete-dictionary': ({ values }) => {
    const [tenant, name] = required(values, 'tenant', 'name');
    return {
      method: 'DELETE',
      path: at`/lending/tenants/${tenant!}/dictionaries/${name!}`,
      print: { text: () => 'deleted' },
    };
  },
};

function senderIdDecision(values: AdminValues, decision: 'approve' | 'reject'): AdminCall {
  const [id, reason] = required(values, 'id', 'reason');
  return {
    method: 'POST',
    path: at`/messaging/sender-ids/${id!}/${decision}`,
    json: { reason, note: text(values, 'note') },
  };
}

export const isAdminCommand = (command: string | undefined): command is string =>
  !!command && Object.hasOwn(CALLS, command);

/** An answer of the admin API that is not a success, as the CLI reports it. */
export class AdminApiRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fields: { field: string; message: string }[],
  ) {
    super(message);
  }
}

/** Runs `args.command` through the running platform's admin API and prints its answer. */
export async function runThroughStack(stack: RunningStack, config: Config, args: AdminArgs): Promise<void> {
  if (!stack.adminUrl)
    throw new Error(
      `${stack.command} (pid ${stack.stackPid}) is starting on this DATA_DIR: run the command again when it is ready.`,
    );
  const token = stack.adminToken ?? config.ADMIN_TOKEN;
  if (!token)
    throw new Error(
      `${stack.command} (pid ${stack.stackPid}) holds this DATA_DIR's database; the command goes through its ` +
        `admin API (${stack.adminUrl}), which needs ADMIN_TOKEN: set the ADMIN_TOKEN the platform runs with, ` +
        'or stop the platform to run the command on the database directly.',
    );
  const call = await CALLS[args.command]!(args);
  // On stderr, so that what a script reads on stdout is the same either way.
  console.error(`(through the admin API of ${stack.command}, pid ${stack.stackPid}: ${stack.adminUrl})`);
  const raw = call.raw;
  const body = raw
    ? 'form' in raw
      ? raw.form
      : raw.body
    : call.json === undefined
      ? undefined
      : JSON.stringify(call.json);
  // A form's content type (with its boundary) is fetch's to set.
  const contentType = raw
    ? 'form' in raw
      ? undefined
      : raw.type
    : body === undefined
      ? undefined
      : 'application/json';
  let response: Response;
  try {
    response = await fetch(`${stack.adminUrl}${call.path}`, {
      method: call.method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(contentType ? { 'content-type': contentType } : {}),
      },
      ...(body === undefined ? {} : { body }),
    });
  } catch (error) {
    throw new Error(
      `${stack.command} (pid ${stack.stackPid}) holds this DATA_DIR's database, but its admin API ` +
        `${stack.adminUrl} does not answer (${(error as Error).cause ?? (error as Error).message}); try again, or stop it.`,
    );
  }
  const answer = await response.text();
  let parsed: Record<string, unknown>;
  try {
    parsed = answer ? (JSON.parse(answer) as Record<string, unknown>) : {};
  } catch {
    throw new Error(
      `${stack.adminUrl} answered ${response.status} with no JSON: is it the platform's admin API?`,
    );
  }
  if (!response.ok) {
    const error = (parsed.error ?? {}) as { message?: string; fields?: { field: string; message: string }[] };
    const message =
      response.status === 401
        ? `the admin API ${stack.adminUrl} refused ADMIN_TOKEN: set the one the platform runs with`
        : `${error.message ?? response.statusText} (${response.status} from ${stack.adminUrl})`;
    throw new AdminApiRefusal(response.status, message, error.fields ?? []);
  }
  const shown = call.print?.field ? parsed[call.print.field] : parsed;
  if (call.print?.text) console.log(call.print.text(parsed));
  else if (call.print?.table) console.table(shown);
  else console.log(JSON.stringify(shown, null, 2));
  const note = ONCE_NOTES[args.command];
  if (note) console.log(note);
}
