/**
 * Bank statements in the shapes real banks write them, written here (not copied) after the published
 * ISO 20022 message definitions and the sample files that statement libraries ship: the layout, the
 * versions and the habits of banks, with our own accounts, names and amounts.
 *
 * - `germanBatchDay` camt.053.001.02 as German savings banks write it: ISO-8859-1 with umlauts in the
 *   names, `<Sts>BOOK</Sts>`, proprietary bank transaction codes (`NTRF+166`, issuer ZKA), a batch
 *   booking (`Btch/NbOfTxs`) whose TxDtls repeat the entry's AcctSvcrRef and carry their amounts in
 *   `AmtDtls/TxAmt/Amt` (.02 has no TxDtls/Amt), `EndToEndId` NOTPROVIDED, `Dbtr/Nm`; a credit with
 *   charges (`Chrgs`), an entry of amount zero and the gateway's own debits.
 * - `nordicDay` camt.053.001.04: structured creditor references (`Strd/CdtrRefInf/Ref`), a return of
 *   one of the gateway's payouts (`RtrInf/Rsn/Cd` AC04), a reversal of an earlier credit (DBIT with
 *   `RvslInd` true), an entry without an amount and a pending one.
 * - `envelopedNotification` camt.054.001.08 in a business application header envelope (`BizMsgEnvlp`
 *   with `Hdr/AppHdr` head.001.001.02 and `Doc/Document`), as SWIFT-connected banks deliver it.
 * - `intradayReport` camt.052.001.08, windows-1252, prefixed namespace.
 */

export const ACCOUNT = 'DE12500105170648489890';

const esc = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** camt.053.001.02, ISO-8859-1: the document's bytes. */
export function germanBatchDay(input: {
  id: string;
  /** Three IDNs paid in one batch booking (12.50, 30.00, 7.25 EUR). */
  batch: [string, string, string];
  /** An IDN paid by one transfer of 99.00 EUR with 1.50 EUR charges deducted by the bank. */
  charged: string;
  /** An IDN paid in full by a single transfer of 45.00 EUR. */
  single: string;
}): Buffer {
  const batchTx = (n: number, amount: string, idn: string, name: string) => `
          <TxDtls>
            <Refs>
              <AcctSvcrRef>${esc(input.id)}-B</AcctSvcrRef>
              <EndToEndId>NOTPROVIDED</EndToEndId>
            </Refs>
            <AmtDtls><TxAmt><Amt Ccy="EUR">${amount}</Amt></TxAmt></AmtDtls>
            <BkTxCd><Prtry><Cd>NTRF+166+00${n}</Cd><Issr>ZKA</Issr></Prtry></BkTxCd>
            <RltdPties>
              <Dbtr><Nm>${esc(name)}</Nm></Dbtr>
              <DbtrAcct><Id><IBAN>DE8937040044053201300${n}</IBAN></Id></DbtrAcct>
            </RltdPties>
            <RmtInf><Ustrd>Rechnung ${idn} Danke</Ustrd></RmtInf>
          </TxDtls>`;
  const xml = `<?xml version="1.0" encoding="ISO-8859-1"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02 camt.053.001.02.xsd">
  <BkToCstmrStmt>
    <GrpHdr>
      <MsgId>${esc(input.id)}-MSG</MsgId>
      <CreDtTm>2027-07-16T06:12:44.0+02:00</CreDtTm>
      <MsgPgntn><PgNb>1</PgNb><LastPgInd>true</LastPgInd></MsgPgntn>
    </GrpHdr>
    <Stmt>
      <Id>${esc(input.id)}</Id>
      <ElctrncSeqNb>137</ElctrncSeqNb>
      <CreDtTm>2027-07-16T06:12:44.0+02:00</CreDtTm>
      <FrToDt><FrDtTm>2027-07-15T00:00:00.0+02:00</FrDtTm><ToDtTm>2027-07-15T23:59:59.9+02:00</ToDtTm></FrToDt>
      <Acct>
        <Id><IBAN>${ACCOUNT}</IBAN></Id>
        <Ccy>EUR</Ccy>
        <Ownr><Nm>Zahlungsdienst Müller GmbH</Nm></Ownr>
        <Svcr><FinInstnId><BIC>SPKHDE2HXXX</BIC></FinInstnId></Svcr>
      </Acct>
      <Bal><Tp><CdOrPrtry><Cd>PRCD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">12000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2027-07-14</Dt></Dt></Bal>
      <Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">11993.25</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2027-07-15</Dt></Dt></Bal>
      <TxsSummry><TtlNtries><NbOfNtries>5</NbOfNtries></TtlNtries></TxsSummry>
      <Ntry>
        <Amt Ccy="EUR">49.75</Amt>
        <CdtDbtInd>CRDT</CdtDbtInd>
        <Sts>BOOK</Sts>
        <BookgDt><Dt>2027-07-15</Dt></BookgDt>
        <ValDt><Dt>2027-07-15</Dt></ValDt>
        <AcctSvcrRef>${esc(input.id)}-B</AcctSvcrRef>
        <BkTxCd><Prtry><Cd>NTRF+166</Cd><Issr>ZKA</Issr></Prtry></BkTxCd>
        <NtryDtls>
          <Btch><NbOfTxs>3</NbOfTxs></Btch>${batchTx(1, '12.50', input.batch[0], 'Jürgen Größe')}${batchTx(2, '30.00', input.batch[1], 'Zoë Çelik')}${batchTx(3, '7.25', input.batch[2], 'Søren Ærø')}
        </NtryDtls>
        <AddtlNtryInf>SAMMEL-GUTSCHRIFT</AddtlNtryInf>
      </Ntry>
      <Ntry>
        <Amt Ccy="EUR">97.50</Amt>
        <CdtDbtInd>CRDT</CdtDbtInd>
        <Sts>BOOK</Sts>
        <BookgDt><Dt>2027-07-15</Dt></BookgDt>
        <ValDt><Dt>2027-07-15</Dt></ValDt>
        <AcctSvcrRef>${esc(input.id)}-C</AcctSvcrRef>
        <BkTxCd><Prtry><Cd>NTRF+172</Cd><Issr>ZKA</Issr></Prtry></BkTxCd>
        <Chrgs><Amt Ccy="EUR">1.50</Amt><CdtDbtInd>DBIT</CdtDbtInd></Chrgs>
        <NtryDtls>
          <TxDtls>
            <Refs><EndToEndId>INV-${input.charged}</EndToEndId></Refs>
            <AmtDtls>
              <InstdAmt><Amt Ccy="EUR">99.00</Amt></InstdAmt>
              <TxAmt><Amt Ccy="EUR">97.50</Amt></TxAmt>
            </AmtDtls>
            <Chrgs><Amt Ccy="EUR">1.50</Amt><CdtDbtInd>DBIT</CdtDbtInd><Br>CRED</Br></Chrgs>
            <RltdPties><Dbtr><Nm>Überweisung AG</Nm></Dbtr></RltdPties>
            <RmtInf><Ustrd>EREF+INV-${input.charged} SVWZ+Zahlung ${input.charged}</Ustrd></RmtInf>
          </TxDtls>
        </NtryDtls>
      </Ntry>
      <Ntry>
        <Amt Ccy="EUR">45.00</Amt>
        <CdtDbtInd>CRDT</CdtDbtInd>
        <Sts>BOOK</Sts>
        <BookgDt><Dt>2027-07-15</Dt></BookgDt>
        <ValDt><Dt>2027-07-15</Dt></ValDt>
        <AcctSvcrRef>${esc(input.id)}-S</AcctSvcrRef>
        <BkTxCd><Prtry><Cd>NTRF+166</Cd><Issr>ZKA</Issr></Prtry></BkTxCd>
        <NtryDtls>
          <TxDtls>
            <Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs>
            <RltdPties><Dbtr><Nm>Björn Weiß</Nm></Dbtr></RltdPties>
            <RmtInf><Ustrd>IDN ${input.single}</Ustrd></RmtInf>
          </TxDtls>
        </NtryDtls>
      </Ntry>
      <Ntry>
        <Amt Ccy="EUR">0.00</Amt>
        <CdtDbtInd>CRDT</CdtDbtInd>
        <Sts>BOOK</Sts>
        <BookgDt><Dt>2027-07-15</Dt></BookgDt>
        <ValDt><Dt>2027-07-15</Dt></ValDt>
        <AcctSvcrRef>${esc(input.id)}-Z</AcctSvcrRef>
        <BkTxCd><Prtry><Cd>NMSC+808</Cd><Issr>ZKA</Issr></Prtry></BkTxCd>
        <NtryDtls><TxDtls><RmtInf><Ustrd>Kontoabschluss Zinsen 0,00</Ustrd></RmtInf></TxDtls></NtryDtls>
      </Ntry>
      <Ntry>
        <Amt Ccy="EUR">100.00</Amt>
        <CdtDbtInd>DBIT</CdtDbtInd>
        <Sts>BOOK</Sts>
        <BookgDt><Dt>2027-07-15</Dt></BookgDt>
        <ValDt><Dt>2027-07-15</Dt></ValDt>
        <AcctSvcrRef>${esc(input.id)}-D</AcctSvcrRef>
        <BkTxCd><Prtry><Cd>NTRF+116</Cd><Issr>ZKA</Issr></Prtry></BkTxCd>
      </Ntry>
    </Stmt>
  </BkToCstmrStmt>
</Document>
`;
  return Buffer.from(xml, 'latin1');
}

/** camt.053.001.04, UTF-8. */
export function nordicDay(input: {
  id: string;
  /** Paid (250.00 EUR) with the IDN as structured creditor reference (Strd/CdtrRefInf/Ref). */
  structured: string;
  /** One booking of 60.00 EUR the bank lists twice under the same AcctSvcrRef. */
  repeated: string;
  /** The earlier credit the bank reverses (its AcctSvcrRef and EndToEndId) and its amount. */
  reversed?: { ref: string; endToEndId: string; amount: string };
}): string {
  const entry = (body: string) => `
      <Ntry>${body}
        <BookgDt><Dt>2027-07-15</Dt></BookgDt>
        <ValDt><Dt>2027-07-15</Dt></ValDt>
      </Ntry>`;
  const bkTxCd = (family: string, sub: string) =>
    `<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>${family}</Cd><SubFmlyCd>${sub}</SubFmlyCd></Fmly></Domn></BkTxCd>`;
  const repeatedEntry = entry(`
        <NtryRef>${esc(input.id)}-R</NtryRef>
        <Amt Ccy="EUR">60.00</Amt>
        <CdtDbtInd>CRDT</CdtDbtInd>
        <Sts>BOOK</Sts>
        <AcctSvcrRef>${esc(input.id)}-R</AcctSvcrRef>
        ${bkTxCd('RCDT', 'ESCT')}
        <NtryDtls><TxDtls>
          <Refs><AcctSvcrRef>${esc(input.id)}-R</AcctSvcrRef><EndToEndId>E2E-R</EndToEndId></Refs>
          <Amt Ccy="EUR">60.00</Amt><CdtDbtInd>CRDT</CdtDbtInd>
          <RmtInf><Ustrd>${input.repeated}</Ustrd></RmtInf>
        </TxDtls></NtryDtls>`);
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.04">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>${esc(input.id)}-MSG</MsgId><CreDtTm>2027-07-16T02:00:00</CreDtTm></GrpHdr>
    <Stmt>
      <Id>${esc(input.id)}</Id>
      <LglSeqNb>196</LglSeqNb>
      <CreDtTm>2027-07-16T02:00:00</CreDtTm>
      <Acct><Id><IBAN>${ACCOUNT}</IBAN></Id><Ccy>EUR</Ccy></Acct>
      <Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">500.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2027-07-15</Dt></Dt></Bal>
      ${entry(`
        <Amt Ccy="EUR">250.00</Amt>
        <CdtDbtInd>CRDT</CdtDbtInd>
        <Sts>BOOK</Sts>
        <AcctSvcrRef>${esc(input.id)}-RF</AcctSvcrRef>
        ${bkTxCd('RCDT', 'ESCT')}
        <NtryDtls><TxDtls>
          <Refs><EndToEndId>E2E-RF</EndToEndId><TxId>TX-RF</TxId></Refs>
          <Amt Ccy="EUR">250.00</Amt><CdtDbtInd>CRDT</CdtDbtInd>
          <RltdPties><Dbtr><Nm>Kari Nordmann</Nm></Dbtr><DbtrAcct><Id><IBAN>NO9386011117947</IBAN></Id></DbtrAcct></RltdPties>
          <RmtInf><Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry><Issr>ISO</Issr></Tp><Ref>${input.structured}</Ref></CdtrRefInf></Strd></RmtInf>
        </TxDtls></NtryDtls>`)}
      ${repeatedEntry}
      ${repeatedEntry}
      ${entry(`
        <Amt Ccy="EUR">80.00</Amt>
        <CdtDbtInd>CRDT</CdtDbtInd>
        <Sts>BOOK</Sts>
        <AcctSvcrRef>${esc(input.id)}-RT</AcctSvcrRef>
        ${bkTxCd('ICDT', 'RRTN')}
        <NtryDtls><TxDtls>
          <Refs><EndToEndId>PAYOUT-17</EndToEndId></Refs>
          <Amt Ccy="EUR">80.00</Amt><CdtDbtInd>CRDT</CdtDbtInd>
          <RtrInf><OrgnlBkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>ICDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></OrgnlBkTxCd><Rsn><Cd>AC04</Cd></Rsn><AddtlInf>Account closed</AddtlInf></RtrInf>
        </TxDtls></NtryDtls>`)}
      ${
        input.reversed
          ? entry(`
        <Amt Ccy="EUR">${input.reversed.amount}</Amt>
        <CdtDbtInd>DBIT</CdtDbtInd>
        <RvslInd>true</RvslInd>
        <Sts>BOOK</Sts>
        <AcctSvcrRef>${esc(input.id)}-RV</AcctSvcrRef>
        ${bkTxCd('RCDT', 'ESCT')}
        <NtryDtls><TxDtls>
          <Refs><AcctSvcrRef>${esc(input.reversed.ref)}</AcctSvcrRef><EndToEndId>${esc(input.reversed.endToEndId)}</EndToEndId></Refs>
          <Amt Ccy="EUR">${input.reversed.amount}</Amt><CdtDbtInd>DBIT</CdtDbtInd>
        </TxDtls></NtryDtls>`)
          : ''
      }
      ${entry(`
        <CdtDbtInd>CRDT</CdtDbtInd>
        <Sts>BOOK</Sts>
        <AcctSvcrRef>${esc(input.id)}-NA</AcctSvcrRef>
        ${bkTxCd('RCDT', 'ESCT')}`)}
      ${entry(`
        <Amt Ccy="EUR">12.00</Amt>
        <CdtDbtInd>CRDT</CdtDbtInd>
        <Sts>PDNG</Sts>
        <AcctSvcrRef>${esc(input.id)}-P</AcctSvcrRef>`)}
    </Stmt>
  </BkToCstmrStmt>
</Document>
`;
}

/** camt.054.001.08 in a business application header envelope. */
export function envelopedNotification(input: { id: string; idn: string; amount: string }): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<BizMsgEnvlp xmlns="urn:iso:std:iso:20022:tech:xsd:nvlp.001.001.01">
  <Hdr>
    <AppHdr xmlns="urn:iso:std:iso:20022:tech:xsd:head.001.001.02">
      <Fr><FIId><FinInstnId><BICFI>SPKHDE2HXXX</BICFI></FinInstnId></FIId></Fr>
      <To><OrgId><Id><OrgId><AnyBIC>PAYGDEFFXXX</AnyBIC></OrgId></Id></OrgId></To>
      <BizMsgIdr>${esc(input.id)}-BAH</BizMsgIdr>
      <MsgDefIdr>camt.054.001.08</MsgDefIdr>
      <BizSvc>swift.cbprplus.02</BizSvc>
      <CreDt>2027-07-15T11:00:00+00:00</CreDt>
    </AppHdr>
  </Hdr>
  <Doc>
    <Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08">
      <BkToCstmrDbtCdtNtfctn>
        <GrpHdr><MsgId>${esc(input.id)}-MSG</MsgId><CreDtTm>2027-07-15T11:00:00+00:00</CreDtTm></GrpHdr>
        <Ntfctn>
          <Id>${esc(input.id)}</Id>
          <CreDtTm>2027-07-15T11:00:00+00:00</CreDtTm>
          <Acct><Id><IBAN>${ACCOUNT}</IBAN></Id></Acct>
          <Ntry>
            <NtryRef>${esc(input.id)}-1</NtryRef>
            <Amt Ccy="EUR">${input.amount}</Amt>
            <CdtDbtInd>CRDT</CdtDbtInd>
            <Sts><Cd>BOOK</Cd></Sts>
            <BookgDt><Dt>2027-07-15</Dt></BookgDt>
            <ValDt><Dt>2027-07-15</Dt></ValDt>
            <AcctSvcrRef>${esc(input.id)}-1</AcctSvcrRef>
            <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
            <NtryDtls><TxDtls>
              <Refs><AcctSvcrRef>${esc(input.id)}-1-TX</AcctSvcrRef><EndToEndId>E2E-${esc(input.id)}</EndToEndId><UETR>3f2504e0-4f89-41d3-9a0c-0305e82c3301</UETR></Refs>
              <Amt Ccy="EUR">${input.amount}</Amt>
              <CdtDbtInd>CRDT</CdtDbtInd>
              <RltdPties><Dbtr><Pty><Nm>Anna Schmidt</Nm></Pty></Dbtr></RltdPties>
              <RmtInf><Ustrd>Order ${input.idn}</Ustrd></RmtInf>
            </TxDtls></NtryDtls>
          </Ntry>
        </Ntfctn>
      </BkToCstmrDbtCdtNtfctn>
    </Document>
  </Doc>
</BizMsgEnvlp>
`;
}

/** camt.052.001.08, windows-1252, prefixed namespace: the bytes. */
export function intradayReport(input: { id: string; idn: string }): Buffer {
  const xml = `<?xml version='1.0' encoding='windows-1252'?>
<c:Document xmlns:c="urn:iso:std:iso:20022:tech:xsd:camt.052.001.08">
  <c:BkToCstmrAcctRpt>
    <c:GrpHdr><c:MsgId>${esc(input.id)}-MSG</c:MsgId><c:CreDtTm>2027-07-15T10:00:00</c:CreDtTm></c:GrpHdr>
    <c:Rpt>
      <c:Id>${esc(input.id)}</c:Id>
      <c:Acct><c:Id><c:IBAN>${ACCOUNT}</c:IBAN></c:Id></c:Acct>
      <c:Ntry>
        <c:Amt Ccy="EUR">19.99</c:Amt>
        <c:CdtDbtInd>CRDT</c:CdtDbtInd>
        <c:Sts><c:Cd>BOOK</c:Cd></c:Sts>
        <c:BookgDt><c:Dt>2027-07-15</c:Dt></c:BookgDt>
        <c:AcctSvcrRef>${esc(input.id)}-1</c:AcctSvcrRef>
        <c:NtryDtls><c:TxDtls>
          <c:Amt Ccy="EUR">19.99</c:Amt>
          <c:RltdPties><c:Dbtr><c:Pty><c:Nm>François Lefèvre – €</c:Nm></c:Pty></c:Dbtr></c:RltdPties>
          <c:RmtInf><c:Ustrd>Facture ${input.idn}</c:Ustrd></c:RmtInf>
        </c:TxDtls></c:NtryDtls>
      </c:Ntry>
    </c:Rpt>
  </c:BkToCstmrAcctRpt>
</c:Document>
`;
  // windows-1252 bytes: latin1 for the letters, 0x80 for the euro sign, 0x96 for the en dash.
  return Buffer.from(xml.replace('€', '\u0080').replace('–', '\u0096'), 'latin1');
}
