import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { ConnectionGate, addressKey } from '../../src/server/connection-gate.js';
import { waitFor } from '../support/chat-kit.js';

/** The connection caps on a real TCP listener over loopback (the service wires the same gate into every listener). */
describe('connection gate', () => {
  let server: Server;
  let gate: ConnectionGate;
  let port: number;

  before(async () => {
    gate = new ConnectionGate({ maxConnections: 4, maxConnectionsPerAddress: 2 });
    server = createServer((socket) => {
      if (gate.admit(socket, 'gate-test')) socket.write('admitted');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    for (const socket of clients) socket.destroy();
    server.close();
  });

  /** Connects and reports whether the gate kept the connection: kept ones are greeted, refused ones reset. */
  const clients: Socket[] = [];
  async function attempt(localAddress: string): Promise<{ socket: Socket; kept: boolean }> {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    clients.push(socket);
    socket.on('error', () => undefined);
    const kept = await new Promise<boolean>((resolve) => {
      socket.once('data', () => resolve(true));
      socket.once('close', () => resolve(false));
    });
    return { socket, kept };
  }

  it('keeps at most the per-address cap from one address and the instance cap in all, and frees slots on close', async () => {
    const a1 = await attempt('127.0.2.1');
    const a2 = await attempt('127.0.2.1');
    const a3 = await attempt('127.0.2.1');
    assert.deepEqual([a1.kept, a2.kept, a3.kept], [true, true, false], 'third connection from one address');

    const b1 = await attempt('127.0.2.2');
    const b2 = await attempt('127.0.2.2');
    assert.deepEqual([b1.kept, b2.kept], [true, true]);
    await waitFor(() => gate.openConnections === 4);
    const c1 = await attempt('127.0.2.3');
    assert.equal(c1.kept, false, 'fifth connection of the instance');

    a1.socket.destroy();
    await waitFor(() => gate.openConnections === 3, { what: 'the closed connection to give its slot back' });
    const c2 = await attempt('127.0.2.3');
    assert.equal(c2.kept, true);
    for (const s of [a2, b1, b2, c2]) s.socket.destroy();
    await waitFor(() => gate.openConnections === 0);
  });

  it('counts IPv4-mapped addresses as IPv4 and IPv6 clients per /64', () => {
    assert.equal(addressKey('::ffff:127.0.0.1'), '127.0.0.1');
    assert.equal(addressKey('10.1.2.3'), '10.1.2.3');
    assert.equal(addressKey('2001:db8:1:2:3:4:5:6'), addressKey('2001:db8:1:2::9'));
    assert.equal(addressKey('2001:db8:1:2::9'), '2001:db8:1:2::/64');
    assert.equal(addressKey('2001:0db8:0001:0002::1'), '2001:db8:1:2::/64');
    assert.notEqual(addressKey('2001:db8:1:2::1'), addressKey('2001:db8:1:3::1'));
    assert.equal(addressKey('::1'), '0:0:0:0::/64');
    assert.equal(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.equal(addressKey('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64');
    assert.equal(addressKey(undefined), 'unknown');
  });
});
