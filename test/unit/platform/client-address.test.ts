import type { IncomingMessage } from 'node:http';
import { clientAddress } from '../../../src/rest-facade/request-origin';

const request = (forwardedFor?: string | string[]): IncomingMessage =>
  ({
    socket: { remoteAddress: '10.1.2.3' },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  }) as unknown as IncomingMessage;

describe('clientAddress (the per-address limits, and the WebSocket sessions per address)', () => {
  it('is the connection address unless the proxy is trusted', () => {
    expect(clientAddress(request('198.51.100.7'), false)).toBe('10.1.2.3');
  });

  it("behind a trusted proxy is the last X-Forwarded-For entry, the proxy's own, whatever the client wrote before it", () => {
    expect(clientAddress(request('198.51.100.7'), true)).toBe('198.51.100.7');
    expect(clientAddress(request('1.1.1.1, 2.2.2.2,198.51.100.7'), true)).toBe('198.51.100.7');
    expect(clientAddress(request(['1.1.1.1', '2001:db8::1']), true)).toBe('2001:db8::1');
  });

  it('falls back to the connection address when the header is missing or not an address', () => {
    expect(clientAddress(request(), true)).toBe('10.1.2.3');
    expect(clientAddress(request('1.1.1.1, not-an-address'), true)).toBe('10.1.2.3');
  });
});
