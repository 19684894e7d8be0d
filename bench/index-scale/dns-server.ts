import type { Socket as DgramSocket } from 'node:dgram';
import type { Server as NetServer } from 'node:net';
import dns2 from 'dns2';
import { hostIndexOf, type SyntheticHost } from './host-catalogue';

const { Packet } = dns2;
const TTL = 300;
const RCODE_NXDOMAIN = 3;

export interface SyntheticDns {
  /** "127.0.0.1:port", for DNS_SERVERS. */
  server: string;
  /** Questions received since the last reset, by type name. */
  questions: Map<string, number>;
  close(): Promise<void>;
}

/**
 * The synthetic web's name server (UDP and TCP on one port, like a real one): each host of the
 * list has an A record with its own loopback address; other record types of a listed name are
 * empty answers (NOERROR), and a name outside the list, or an "nxdomain" host, does not exist.
 */
export async function startSyntheticDns(
  hosts: readonly SyntheticHost[],
  port: number,
): Promise<SyntheticDns> {
  const questions = new Map<string, number>();
  const typeNames = new Map(Object.entries(Packet.TYPE).map(([name, value]) => [value as number, name]));
  const handle: dns2.DnsHandler = (request, send) => {
    const response = Packet.createResponseFromRequest(request);
    const [question] = request.questions;
    const typeName = typeNames.get(question.type) ?? String(question.type);
    questions.set(typeName, (questions.get(typeName) ?? 0) + 1);
    const index = hostIndexOf(question.name);
    const host = index !== undefined ? hosts[index] : undefined;
    response.header.aa = 1;
    if (!host || host.behaviour === 'nxdomain') {
      response.header.rcode = RCODE_NXDOMAIN;
    } else if (question.type === Packet.TYPE.A) {
      response.answers.push({
        name: question.name,
        type: Packet.TYPE.A,
        class: Packet.CLASS.IN,
        ttl: TTL,
        address: host.address,
      } as dns2.Packet.Resource);
    }
    void send(response);
  };
  const server = dns2.createServer({ udp: true, tcp: true, handle });
  server.on('error', () => undefined);
  const { tcp, udp } = (server as unknown as { servers: { tcp: NetServer; udp: DgramSocket } }).servers;
  await new Promise<void>((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(port, '127.0.0.1', () => resolve());
  });
  await new Promise<void>((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    server: `127.0.0.1:${port}`,
    questions,
    close: async () => {
      await server.close();
    },
  };
}
