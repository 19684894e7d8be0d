import { randomInt } from 'node:crypto';
import { connect } from 'node:net';
import { DNS_TYPE, decodeDnsMessage, encodeDnsQuery, type DnsRecord } from './dns-wire-codec';

export interface ZoneTransferOptions {
  host: string;
  port: number;
  /** Time allowed for the whole transfer. */
  timeoutMs: number;
  /** Stops reading a zone larger than this many records. */
  maxRecords: number;
  signal?: AbortSignal;
}

export interface ZoneTransferResult {
  records: DnsRecord[];
  /** True when the server sent the whole zone (from the opening SOA to the closing SOA). */
  complete: boolean;
}

/**
 * Asks one name server for a full zone transfer (AXFR, RFC 5936) over TCP. Most servers refuse;
 * a refusal, a timeout or a broken stream ends the attempt with whatever records arrived and
 * `complete: false`. Never throws.
 */
export function transferZone(zone: string, options: ZoneTransferOptions): Promise<ZoneTransferResult> {
  return new Promise((resolve) => {
    const id = randomInt(0x10000);
    const records: DnsRecord[] = [];
    let buffered = Buffer.alloc(0);
    let soaSeen = 0;
    let settled = false;

    const socket = connect({ host: options.host, port: options.port });
    const finish = (complete: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve({ records, complete });
    };
    const onAbort = () => finish(false);
    const timer = setTimeout(onAbort, options.timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) return finish(false);

    /** Handles one message; returns false when the transfer has ended. */
    const handleMessage = (message: Buffer): boolean => {
      const decoded = decodeDnsMessage(message);
      if (decoded.id !== id || decoded.rcode !== 0 || decoded.answers.length === 0) return false;
      for (const record of decoded.answers) {
        // The zone must open with its SOA; anything else is not a transfer of this zone.
        if (records.length === 0 && (record.type !== DNS_TYPE.SOA || record.name !== zone)) return false;
        if (record.type === DNS_TYPE.SOA && ++soaSeen === 2) {
          finish(true);
          return false;
        }
        records.push(record);
        if (records.length >= options.maxRecords) return false;
      }
      return true;
    };

    socket.on('connect', () => {
      const query = encodeDnsQuery(id, zone, DNS_TYPE.AXFR);
      const length = Buffer.alloc(2);
      length.writeUInt16BE(query.length);
      socket.write(Buffer.concat([length, query]));
    });
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      try {
        while (!settled && buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
          const end = 2 + buffered.readUInt16BE(0);
          const message = buffered.subarray(2, end);
          buffered = buffered.subarray(end);
          if (!handleMessage(message)) finish(false);
        }
      } catch {
        finish(false);
      }
    });
    socket.on('error', () => finish(false));
    socket.on('close', () => finish(false));
  });
}
