import type { WebSocket } from 'ws';

/** WebSocket close code of a refusal by policy (RFC 6455): graphql-ws clients do not retry it. */
export const POLICY_VIOLATION = 1008;

/** Close code and reason of a session whose key was revoked (graphql-ws' Forbidden). */
export const KEY_REVOKED = { code: 4403, reason: 'Forbidden: API key revoked' } as const;

export interface SessionCaps {
  /** Open sessions of one API key (the demo key included), in this process. */
  perKey: number;
  /** Open WebSocket connections from one client address, authenticated or not, in this process. */
  perAddress: number;
}

/**
 * The open WebSocket sessions of this process, by client address (from the upgrade on) and by
 * API key (once the connection is authenticated): refused past WS_MAX_SESSIONS_PER_ADDRESS and
 * WS_MAX_SESSIONS_PER_KEY with close code 1008 and a reason naming the cap, and ended (4403) when
 * their key is revoked. A closed socket leaves both counts.
 */
export class WebSocketSessions {
  private readonly byAddress = new Map<string, number>();
  private readonly byKey = new Map<number | 'demo', Set<WebSocket>>();

  constructor(
    private readonly caps: SessionCaps,
    private readonly gauge: { inc(): void; dec(): void },
  ) {}

  /** A new connection: counted for its address until it closes, or closed at once past the address's cap. */
  admit(socket: WebSocket, address: string): boolean {
    const open = this.byAddress.get(address) ?? 0;
    if (open >= this.caps.perAddress) {
      socket.close(
        POLICY_VIOLATION,
        `Too many WebSocket sessions from this address (at most ${this.caps.perAddress})`,
      );
      return false;
    }
    this.byAddress.set(address, open + 1);
    this.gauge.inc();
    socket.once('close', () => {
      const left = (this.byAddress.get(address) ?? 1) - 1;
      if (left > 0) this.byAddress.set(address, left);
      else this.byAddress.delete(address);
      this.gauge.dec();
    });
    return true;
  }

  /** An authenticated connection's key: counted until it closes, or closed at once past the key's cap. */
  bind(socket: WebSocket, keyId: number | 'demo'): boolean {
    let open = this.byKey.get(keyId);
    if ((open?.size ?? 0) >= this.caps.perKey) {
      socket.close(
        POLICY_VIOLATION,
        `Too many WebSocket sessions for this API key (at most ${this.caps.perKey})`,
      );
      return false;
    }
    if (!open) this.byKey.set(keyId, (open = new Set()));
    const sessions = open;
    sessions.add(socket);
    socket.once('close', () => {
      sessions.delete(socket);
      if (sessions.size === 0 && this.byKey.get(keyId) === sessions) this.byKey.delete(keyId);
    });
    return true;
  }

  /** Ids of the keys with open sessions (the demo key is a setting, never revoked). */
  keyIds(): number[] {
    return [...this.byKey.keys()].filter((id): id is number => id !== 'demo');
  }

  /** Ends every session of a revoked key. */
  closeRevoked(keyId: number): void {
    for (const socket of this.byKey.get(keyId) ?? []) socket.close(KEY_REVOKED.code, KEY_REVOKED.reason);
  }
}
