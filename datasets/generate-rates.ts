/**
 * Generates datasets/messaging-rates.csv, the messaging gateway's rate card, from the networks of the
 * `mcc-mnc-list` package and the tariff below. Run once when the tariff or the package changes:
 *
 *   npx tsx datasets/generate-rates.ts
 *
 * The file is committed; the API reads it and never regenerates it, so prices only change on purpose.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { formatPrice, mobileNetworks, type Rate, ratesToCsv } from '../domain/messaging/reference-data.ts';

/** Prices in 1/10000 EUR: one SMS part and one chat-app message. */
interface Tariff {
  sms: number;
  chatapp: number;
}

/**
 * The tariff rule: the price follows the ITU E.212 zone of the network's MCC (its first digit), since
 * termination fees differ mostly by region; a few countries have a price of their own.
 */
const ZONE_TARIFFS: Record<string, Tariff> = {
  '2': { sms: 450, chatapp: 150 }, // Europe
  '3': { sms: 350, chatapp: 120 }, // North America and the Caribbean
  '4': { sms: 550, chatapp: 180 }, // Asia and the Middle East
  '5': { sms: 600, chatapp: 200 }, // Oceania and South-East Asia
  '6': { sms: 700, chatapp: 220 }, // Africa
  '7': { sms: 500, chatapp: 180 }, // Central and South America
};

const COUNTRY_TARIFFS: Record<string, Tariff> = {
  BG: { sms: 250, chatapp: 100 }, // home market: direct carrier connection
  US: { sms: 90, chatapp: 80 }, // A2P 10DLC volume pricing
  CA: { sms: 120, chatapp: 80 },
};

/** Every operational network, once per country it serves; zones 0, 9 (test, international) are not sold. */
export function rateCard(): Rate[] {
  const rates = new Map<string, Rate>();
  for (const network of mobileNetworks()) {
    const zone = ZONE_TARIFFS[network.mcc.charAt(0)];
    if (network.status !== 'Operational' || !zone) continue;
    for (const countryIso of network.countries) {
      const key = `${countryIso}:${network.operatorId}`;
      if (rates.has(key)) continue; // a network listed both under a group of territories and alone
      const tariff = COUNTRY_TARIFFS[countryIso] ?? zone;
      rates.set(key, {
        countryIso,
        mcc: network.mcc,
        mnc: network.mnc,
        operatorId: network.operatorId,
        operator: network.operator ?? network.brand ?? '',
        smsPriceEur: formatPrice(tariff.sms),
        chatappPriceEur: formatPrice(tariff.chatapp),
      });
    }
  }
  return [...rates.values()].sort(
    (a, b) => a.countryIso.localeCompare(b.countryIso) || a.operatorId.localeCompare(b.operatorId),
  );
}

export const RATES_FILE = fileURLToPath(new URL('./messaging-rates.csv', import.meta.url));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const rates = rateCard();
  writeFileSync(RATES_FILE, ratesToCsv(rates));
  console.log(`wrote ${rates.length} rates to ${RATES_FILE}`);
}
