/**
 * Builds bank statements the way a bank writes them, independently of the gateway's reader: the
 * structure of the published ISO 20022 examples of the message definitions camt.053.001.08
 * (BankToCustomerStatementV08, "Bank-to-Customer Cash Management" message definition report and its
 * example statement: GrpHdr, Stmt with Acct, Bal OPBD/CLBD, TxsSummry, Ntry with Amt/CdtDbtInd/Sts/Cd,
 * BookgDt, ValDt, AcctSvcrRef, BkTxCd, NtryDtls/TxDtls with Refs, Amt, RltdPties, RmtInf) and
 * camt.054.001.08 (BankToCustomerDebitCreditNotificationV08: the same Ntry inside Ntfctn, no balances).
 */

export interface CamtEntry {
  /** Decimal text, e.g. '22.80'. */
  amount: string;
  currency?: string;
  credit?: boolean;
  /** BOOK unless given (PDNG, INFO). */
  status?: string;
  /** The bank's reference of the entry (AcctSvcrRef). */
  ref: string;
  /** Unstructured remittance lines (RmtInf/Ustrd). */
  ustrd?: string[];
  /** Structured creditor reference (RmtInf/Strd/CdtrRefInf/Ref). */
  creditorRef?: string;
  debtor?: string;
  /** RvslInd true: the bank takes back an earlier entry (with `credit: false`, an earlier credit). */
  reversal?: boolean;
  /** Several transactions booked as one batch entry (each with its own amount and reference). */
  batch?: Array<{ amount: string; ref: string; ustrd: string }>;
}

export interface CamtStatement {
  id: string;
  iban?: string;
  msgId?: string;
  entries: CamtEntry[];
}

export const GATEWAY_IBAN = 'BG80BNBG96611020345678';

const xmlText = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

function transaction(entry: { amount: string; currency: string; ref: string }, details: string): string {
  return `<TxDtls>
          <Refs><AcctSvcrRef>${xmlText(entry.ref)}-TX</AcctSvcrRef><EndToEndId>E2E-${xmlText(entry.ref)}</EndToEndId></Refs>
          <Amt Ccy="${entry.currency}">${entry.amount}</Amt>
          <CdtDbtInd>CRDT</CdtDbtInd>
          ${details}
        </TxDtls>`;
}

function entryXml(entry: CamtEntry): string {
  const currency = entry.currency ?? 'BGN';
  const indicator = entry.credit === false ? 'DBIT' : 'CRDT';
  const parties = `<RltdPties>
            <Dbtr><Pty><Nm>${xmlText(entry.debtor ?? 'Ivan Petrov')}</Nm></Pty></Dbtr>
            <DbtrAcct><Id><IBAN>BG18RZBB91550123456789</IBAN></Id></DbtrAcct>
          </RltdPties>`;
  const remittance = `<RmtInf>${(entry.ustrd ?? []).map((line) => `<Ustrd>${xmlText(line)}</Ustrd>`).join('')}${
    entry.creditorRef
      ? `<Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry></Tp><Ref>${xmlText(entry.creditorRef)}</Ref></CdtrRefInf></Strd>`
      : ''
  }</RmtInf>`;
  const transactions = entry.batch
    ? entry.batch
        .map((tx) =>
          transaction(
            { amount: tx.amount, currency, ref: tx.ref },
            `${parties}<RmtInf><Ustrd>${xmlText(tx.ustrd)}</Ustrd></RmtInf>`,
          ),
        )
        .join('\n')
    : transaction({ amount: entry.amount, currency, ref: entry.ref }, `${parties}${remittance}`);
  return `<Ntry>
      <NtryRef>${xmlText(entry.ref)}</NtryRef>
      <Amt Ccy="${currency}">${entry.amount}</Amt>
      <CdtDbtInd>${indicator}</CdtDbtInd>${entry.reversal ? '\n      <RvslInd>true</RvslInd>' : ''}
      <Sts><Cd>${entry.status ?? 'BOOK'}</Cd></Sts>
      <BookgDt><Dt>2027-07-15</Dt></BookgDt>
      <ValDt><Dt>2027-07-15</Dt></ValDt>
      <AcctSvcrRef>${xmlText(entry.ref)}</AcctSvcrRef>
      <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
      <NtryDtls>
        ${transactions}
      </NtryDtls>
    </Ntry>`;
}

const header = (msgId: string) => `<GrpHdr>
    <MsgId>${xmlText(msgId)}</MsgId>
    <CreDtTm>2027-07-15T17:00:00+03:00</CreDtTm>
    <MsgPgntn><PgNb>1</PgNb><LastPgInd>true</LastPgInd></MsgPgntn>
  </GrpHdr>`;

const account = (iban: string) =>
  `<Acct><Id><IBAN>${iban}</IBAN></Id><Ccy>BGN</Ccy><Ownr><Nm>Payment gateway</Nm></Ownr><Svcr><FinInstnId><BICFI>BNBGBGSD</BICFI></FinInstnId></Svcr></Acct>`;

/** camt.053.001.08: the bank's statement of the gateway's account. */
export function camt053(statement: CamtStatement): string {
  const balance = (code: string) =>
    `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="BGN">100000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2027-07-15</Dt></Dt></Bal>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<BkToCstmrStmt>
  ${header(statement.msgId ?? `MSG-${statement.id}`)}
  <Stmt>
    <Id>${xmlText(statement.id)}</Id>
    <ElctrncSeqNb>1</ElctrncSeqNb>
    <CreDtTm>2027-07-15T17:00:00+03:00</CreDtTm>
    <FrToDt><FrDtTm>2027-07-15T00:00:00+03:00</FrDtTm><ToDtTm>2027-07-15T23:59:59+03:00</ToDtTm></FrToDt>
    ${account(statement.iban ?? GATEWAY_IBAN)}
    ${balance('OPBD')}
    ${balance('CLBD')}
    <TxsSummry><TtlNtries><NbOfNtries>${statement.entries.length}</NbOfNtries></TtlNtries></TxsSummry>
    ${statement.entries.map(entryXml).join('\n    ')}
  </Stmt>
</BkToCstmrStmt>
</Document>
`;
}

/** camt.054.001.08: the bank's notification of credits to the gateway's account during the day. */
export function camt054(statement: CamtStatement): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08">
<BkToCstmrDbtCdtNtfctn>
  ${header(statement.msgId ?? `MSG-${statement.id}`)}
  <Ntfctn>
    <Id>${xmlText(statement.id)}</Id>
    <CreDtTm>2027-07-15T12:00:00+03:00</CreDtTm>
    ${account(statement.iban ?? GATEWAY_IBAN)}
    ${statement.entries.map(entryXml).join('\n    ')}
  </Ntfctn>
</BkToCstmrDbtCdtNtfctn>
</Document>
`;
}
