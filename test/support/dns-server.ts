import { createSocket, type RemoteInfo } from 'node:dgram';
import { once } from 'node:events';
import * as dnsPacket from 'dns-packet';

/**
 * A tiny authoritative DNS server on UDP loopback for the domain-verification tests: TXT, A and
 * AAAA records set by the test, NXDOMAIN for names it holds nothing for, NODATA for a known name
 * without records of the asked type. The service is pointed at it with GATEWAY_DNS_SERVERS.
 */
export interface TestDnsServer {
  /** `127.0.0.1:<port>`, the GATEWAY_DNS_SERVERS value. */
  address: string;
  setTxt(name: string, values: string[]): void;
  setA(name: string, addresses: string[]): void;
  /** Names asked so far (lowercase), in order. */
  queries: string[];
  close(): Promise<void>;
}

const NXDOMAIN = 3;

export async function startDnsServer(): Promise<TestDnsServer> {
  const txt = new Map<string, string[]>();
  const a = new Map<string, string[]>();
  const queries: string[] = [];
  const socket = createSocket('udp4');
  socket.on('message', (message: Buffer, peer: RemoteInfo) => {
    let query: dnsPacket.DecodedPacket;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase();
    queries.push(name);
    const answers: dnsPacket.Answer[] = [];
    if (question.type === 'TXT')
      for (const value of txt.get(name) ?? []) answers.push({ type: 'TXT', name: question.name, ttl: 1, data: value });
    if (question.type === 'A')
      for (const value of a.get(name) ?? []) answers.push({ type: 'A', name: question.name, ttl: 1, data: value });
    const known = txt.has(name) || a.has(name);
    const response = dnsPacket.encode({
      type: 'response',
      id: query.id ?? 0,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | (known ? 0 : NXDOMAIN),
      questions: [question],
      answers,
    });
    socket.send(response, peer.port, peer.address);
  });
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  return {
    address: `127.0.0.1:${socket.address().port}`,
    setTxt: (name, values) => void txt.set(name.toLowerCase(), values),
    setA: (name, addresses) => void a.set(name.toLowerCase(), addresses),
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
