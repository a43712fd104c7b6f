/**
 * Minimal typings for the untyped `smpp` package (node-smpp 0.5), covering only what the carrier
 * client and the sandbox SMSC use. Field names are the SMPP 3.4 parameter names node-smpp uses.
 */
declare module 'smpp' {
  import type { EventEmitter } from 'node:events';
  import type { Server as NetServer, Socket } from 'node:net';

  // The package is CommonJS and sets some exports in loops, so it is imported as a default export.
  namespace smpp {
    /** A decoded short_message / message_payload: node-smpp decodes by data_coding. */
    export interface DecodedMessage {
      message: string | Buffer;
      udh?: Buffer[];
    }

    /** What can be given as short_message / message_payload when encoding. */
    export type MessageInput = string | Buffer | { message: string | Buffer; udh?: Buffer };

    export interface PduFields {
      command_status?: number;
      sequence_number?: number;
      system_id?: string;
      password?: string;
      system_type?: string;
      interface_version?: number;
      service_type?: string;
      source_addr_ton?: number;
      source_addr_npi?: number;
      source_addr?: string;
      dest_addr_ton?: number;
      dest_addr_npi?: number;
      destination_addr?: string;
      esm_class?: number;
      registered_delivery?: number;
      data_coding?: number | null;
      short_message?: MessageInput;
      message_payload?: MessageInput;
      message_id?: string;
      receipted_message_id?: string;
      message_state?: number;
      sar_msg_ref_num?: number;
      sar_total_segments?: number;
      sar_segment_seqnum?: number;
    }

    export interface Pdu {
      command: string;
      command_id: number;
      command_status: number;
      sequence_number: number;
      system_id?: string;
      password?: string;
      source_addr_ton?: number;
      source_addr_npi?: number;
      source_addr?: string;
      dest_addr_ton?: number;
      dest_addr_npi?: number;
      destination_addr?: string;
      esm_class?: number;
      registered_delivery?: number;
      data_coding?: number;
      short_message?: DecodedMessage | Buffer;
      message_payload?: DecodedMessage | Buffer;
      message_id?: string;
      receipted_message_id?: string;
      message_state?: number;
      sar_msg_ref_num?: number;
      sar_total_segments?: number;
      sar_segment_seqnum?: number;
      isResponse(): boolean;
      response(fields?: PduFields): Pdu;
    }

    export type PduCallback = (pdu: Pdu) => void;

    export class Session extends EventEmitter {
      socket: Socket;
      send(pdu: Pdu, responseCallback?: PduCallback, sendCallback?: PduCallback): boolean;
      close(callback?: () => void): void;
      destroy(callback?: () => void): void;
      bind_transceiver(fields: PduFields, responseCallback?: PduCallback): boolean;
      bind_transmitter(fields: PduFields, responseCallback?: PduCallback): boolean;
      submit_sm(fields: PduFields, responseCallback?: PduCallback): boolean;
      deliver_sm(fields: PduFields, responseCallback?: PduCallback): boolean;
      enquire_link(fields?: PduFields, responseCallback?: PduCallback): boolean;
      unbind(fields?: PduFields, responseCallback?: PduCallback): boolean;
    }

    export class Server extends NetServer {
      sessions: Session[];
    }

    export interface ConnectOptions {
      url: string;
      auto_enquire_link_period?: number;
    }

    export function connect(options: ConnectOptions, listener?: () => void): Session;
    export function createServer(options: object, listener?: (session: Session) => void): Server;

    type ErrorName =
      | 'ESME_ROK'
      | 'ESME_RINVMSGLEN'
      | 'ESME_RINVBNDSTS'
      | 'ESME_RALYBND'
      | 'ESME_RSYSERR'
      | 'ESME_RINVSRCADR'
      | 'ESME_RINVDSTADR'
      | 'ESME_RBINDFAIL'
      | 'ESME_RINVPASWD'
      | 'ESME_RMSGQFUL'
      | 'ESME_RSUBMITFAIL'
      | 'ESME_RTHROTTLED'
      | 'ESME_RX_T_APPN'
      | 'ESME_RUNKNOWNERR'
      | 'ESME_RINVCMDID'
      | 'ESME_RINVTLVSTREAM';

    /** Every SMPP command_status by name; the names listed are the ones our code refers to. */
    export const errors: Readonly<Record<ErrorName, number>> & { readonly [name: string]: number };
  }
  export = smpp;
}
