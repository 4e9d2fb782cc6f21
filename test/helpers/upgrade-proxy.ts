/**
 * Passes a stand-in server's WebSocket upgrades through to the real server behind it (the Host
 * header rewritten to the target's), so a test's hostile HTTP routes leave the socket as it is.
 * Both ends are added to `sockets` so the test's teardown destroys them.
 */
import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';

export function proxyUpgrades(server: Server, target: URL, sockets: Set<Socket>): void {
  server.on('upgrade', (req, socket: Socket, head: Buffer) => {
    const up = connect(Number(target.port), target.hostname, () => {
      const lines = [
        `${req.method} ${req.url} HTTP/1.1`,
        ...Object.entries({ ...req.headers, host: target.host }).map(([k, v]) => `${k}: ${String(v)}`),
      ];
      up.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) up.write(head);
      socket.pipe(up).pipe(socket);
    });
    const end = (): void => {
      up.destroy();
      socket.destroy();
    };
    for (const s of [up, socket]) {
      s.on('error', end);
      s.on('close', end);
      sockets.add(s);
    }
  });
}
