/**
 * Times of the ePay protocol, all in Bulgarian local time (Europe/Sofia, EET/EEST), as ePay uses:
 * EXP_TIME `DD.MM.YYYY[ hh:mm[:ss]]` and PAY_TIME `YYYYMMDDhhmmss`. A date without a time means the
 * end of that day (23:59:59). Shared by the gateway and its merchant clients (lending), since both read
 * and write the protocol's times. Pure (Intl only), safe in workflow code.
 */
export const EPAY_TIME_ZONE = 'Europe/Sofia';

const EXP_TIME = /^(\d{2})\.(\d{2})\.(\d{4})(?: (\d{2}):(\d{2})(?::(\d{2}))?)?$/;

interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

// Made on first use, not at module load: every workflow evaluates this module in its own context
// (reuseV8Context), and building the formatter costs about 0.35 ms that most workflows never need.
let sofiaFormatter: Intl.DateTimeFormat | undefined;
const formatter = () =>
  (sofiaFormatter ??= new Intl.DateTimeFormat('en-GB', {
    timeZone: EPAY_TIME_ZONE,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }));

function localParts(instant: Date): LocalParts {
  const parts: Record<string, number> = {};
  for (const part of formatter().formatToParts(instant)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 0,
    month: parts.month ?? 0,
    day: parts.day ?? 0,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

const asUtc = (p: LocalParts) => Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);

/** The instant a Sofia wall-clock time names (in the autumn overlap, the earlier one). */
function fromSofia(local: LocalParts): Date {
  const wall = asUtc(local);
  // Sofia is UTC+2 or UTC+3: try both offsets and keep the one that reads back as the same wall time.
  for (const offsetHours of [3, 2]) {
    const candidate = new Date(wall - offsetHours * 3_600_000);
    if (asUtc(localParts(candidate)) === wall) return candidate;
  }
  // A wall time skipped by the spring change (03:00-03:59): one hour later is what clocks showed.
  return new Date(wall - 2 * 3_600_000);
}

/** The instant of an EXP_TIME text, or undefined when it is not a real date and time of that form. */
export function parseExpTime(text: string): Date | undefined {
  const match = EXP_TIME.exec(text);
  if (!match) return undefined;
  const [, dd, mm, yyyy, hh, mi, ss] = match;
  const dateOnly = hh === undefined;
  const local: LocalParts = {
    year: Number(yyyy),
    month: Number(mm),
    day: Number(dd),
    hour: dateOnly ? 23 : Number(hh),
    minute: dateOnly ? 59 : Number(mi),
    second: dateOnly ? 59 : Number(ss ?? '0'),
  };
  const check = new Date(asUtc(local));
  if (
    check.getUTCFullYear() !== local.year ||
    check.getUTCMonth() !== local.month - 1 ||
    check.getUTCDate() !== local.day ||
    local.hour > 23 ||
    local.minute > 59 ||
    local.second > 59
  ) {
    return undefined;
  }
  return fromSofia(local);
}

const PAY_TIME = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/;

/** The instant of a PAY_TIME text (`YYYYMMDDhhmmss`), or undefined when it is not a real date and time. */
export function parsePayTime(text: string): Date | undefined {
  const match = PAY_TIME.exec(text);
  if (!match) return undefined;
  const [yyyy, mm, dd, hh, mi, ss] = match.slice(1);
  return parseExpTime(`${dd}.${mm}.${yyyy} ${hh}:${mi}:${ss}`);
}

const two = (n: number) => String(n).padStart(2, '0');

/** `DD.MM.YYYY hh:mm:ss` in Sofia time. */
export function formatExpTime(instant: Date): string {
  const p = localParts(instant);
  return `${two(p.day)}.${two(p.month)}.${p.year} ${two(p.hour)}:${two(p.minute)}:${two(p.second)}`;
}

/** `YYYYMMDDhhmmss` in Sofia time (PAY_TIME of notifications). */
export function formatPayTime(instant: Date): string {
  const p = localParts(instant);
  return `${p.year}${two(p.month)}${two(p.day)}${two(p.hour)}${two(p.minute)}${two(p.second)}`;
}
