import { XMLParser } from 'fast-xml-parser';
import type { CamtKind } from './statement-model.ts';

/**
 * The XML of a camt document as statement.ts reads it: the parser, the messages' shape, where the
 * `Document` is, the entries cut out of the text to be parsed one at a time, and reading the parsed
 * nodes.
 */

export type XmlNode = Record<string, unknown>;

/** Where an entry was cut out of the document (cutEntries): `<NtryAt at="k"/>`, k its range's index. */
export const ENTRY_PLACEHOLDER = 'NtryAt';

/** Elements that may repeat in camt.052/053/054; the parser always gives them as arrays. */
const REPEATING = new Set([
  'Stmt',
  'Rpt',
  'Ntfctn',
  'Ntry',
  ENTRY_PLACEHOLDER,
  'NtryDtls',
  'TxDtls',
  'Ustrd',
  'Strd',
  'Bal',
]);

export const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  // Prefixes are dropped from element names (`camt:Ntry` is `Ntry`); the xmlns attributes stay.
  transformTagName: (name) => name.slice(name.indexOf(':') + 1),
  // Amounts and references stay text: an amount is never a float, a reference keeps its zeros.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => REPEATING.has(name),
});

/** A DOCTYPE (internal subset, external entities): refused before parsing, so no entity is ever expanded. */
export const DTD = /<!DOCTYPE|<!ENTITY/i;

export const DEFINITION = /^(camt\.05[234])\.001\.(\d{2})$/;
export const NAMESPACE = /^urn:iso:std:iso:20022:tech:xsd:(camt\.05[234]\.001\.\d{2})$/;

/** Each kind's message element and its repeating part. */
export const MESSAGES: Record<CamtKind, { message: string; part: string }> = {
  'camt.052': { message: 'BkToCstmrAcctRpt', part: 'Rpt' },
  'camt.053': { message: 'BkToCstmrStmt', part: 'Stmt' },
  'camt.054': { message: 'BkToCstmrDbtCdtNtfctn', part: 'Ntfctn' },
};

/**
 * The `Document` element, at the root or inside a business application header envelope (`AppHdr`
 * and `Document` side by side under any root, e.g. `BizMsgEnvlp`/`Hdr`/`AppHdr` + `Doc`/`Document`),
 * with the header's message definition (`AppHdr/MsgDefIdr`) when there is one.
 */
export function findDocument(root: XmlNode): { document?: XmlNode; headerDefinition?: string } {
  let level: XmlNode[] = [root];
  let headerDefinition: string | undefined;
  for (let depth = 0; depth < 4 && level.length > 0; depth++) {
    for (const node of level) {
      const header = asNode(node.AppHdr);
      if (header) headerDefinition ??= text(header.MsgDefIdr);
    }
    const found = level.map((node) => asNode(node.Document)).find((node) => node !== undefined);
    if (found) return { document: found, headerDefinition };
    level = level.flatMap((node) =>
      Object.entries(node)
        .filter(([name]) => !name.startsWith('@') && !name.startsWith('?') && name !== '#text')
        .flatMap(([, value]) => nodes(value)),
    );
  }
  return { headerDefinition };
}

/** Statement parts whose `Ntry` children are cut out of the document (cutEntries). */
const PARTS = new Set(Object.values(MESSAGES).map(({ part }) => part));

/**
 * Cuts the entries (`Ntry` of a Stmt, Rpt or Ntfctn) out of a well-formed document: the skeleton
 * keeps a `<NtryAt at="k"/>` in the place of the k-th entry, whose text is `xml.slice(ranges[2k],
 * ranges[2k+1])`. A scan of the markup only (comments, CDATA, processing instructions and quoted
 * attribute values skipped), so the entries are never parsed here.
 */
export function cutEntries(xml: string): { skeleton: string; ranges: number[] } {
  const ranges: number[] = [];
  const pieces: string[] = [];
  const open: string[] = [];
  let copied = 0;
  let entryStart = -1;
  let entryDepth = -1;
  const skipTo = (from: number, end: string) => {
    const at = xml.indexOf(end, from);
    return at < 0 ? xml.length : at + end.length;
  };
  for (let at = xml.indexOf('<'); at >= 0 && at < xml.length; at = xml.indexOf('<', at)) {
    if (xml.startsWith('<!--', at)) at = skipTo(at + 4, '-->');
    else if (xml.startsWith('<![CDATA[', at)) at = skipTo(at + 9, ']]>');
    else if (xml.startsWith('<?', at)) at = skipTo(at + 2, '?>');
    else if (xml.startsWith('<!', at)) at = skipTo(at + 2, '>');
    else {
      let end = at + 1;
      for (let quote = ''; end < xml.length; end++) {
        const char = xml[end];
        if (quote) {
          if (char === quote) quote = '';
        } else if (char === '"' || char === "'") quote = char;
        else if (char === '>') break;
      }
      const closing = xml[at + 1] === '/';
      const selfClosing = !closing && xml[end - 1] === '/';
      const name = /^[^\s/>]+/.exec(xml.slice(at + (closing ? 2 : 1), Math.min(end, at + 200)))?.[0] ?? '';
      const local = name.slice(name.indexOf(':') + 1);
      if (closing) open.pop();
      if (!closing && entryStart < 0 && local === 'Ntry' && PARTS.has(open.at(-1) ?? '')) {
        pieces.push(xml.slice(copied, at));
        copied = at;
        entryStart = at;
        entryDepth = open.length;
      }
      if (!closing && !selfClosing) open.push(local);
      at = end + 1;
      if (entryStart >= 0 && open.length === entryDepth) {
        pieces.push(`<${ENTRY_PLACEHOLDER} at="${ranges.length / 2}"/>`);
        ranges.push(entryStart, at);
        copied = at;
        entryStart = -1;
      }
    }
  }
  pieces.push(xml.slice(copied));
  return { skeleton: pieces.join(''), ranges };
}

export function asNode(value: unknown): XmlNode | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as XmlNode)
    : undefined;
}

export function nodes(value: unknown): XmlNode[] {
  return (Array.isArray(value) ? value : [value]).map(asNode).filter((node) => node !== undefined);
}

/** The text of an element: a plain string, or `#text` of an element with attributes. */
export function text(value: unknown): string | undefined {
  const raw = typeof value === 'string' ? value : asNode(value)?.['#text'];
  return typeof raw === 'string' && raw.trim() !== '' ? raw.trim() : undefined;
}
