import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tls from 'node:tls';

/** Files of a throwaway PKI made with the openssl CLI: a CA, a server and a client certificate. */
export interface TestPki {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** A client certificate from another CA (the server must refuse it). */
  strangerCert: string;
  strangerKey: string;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: 'pipe' });
}

/** Makes the PKI in a temp dir (server certificate valid for localhost and 127.0.0.1). */
export function makeTestPki(): TestPki {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dar-pki-'));
  const ca = (name: string): void => {
    openssl(
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.pem`,
        '-days',
        '2',
        '-subj',
        `/CN=${name}`,
      ],
      dir,
    );
  };
  const leaf = (name: string, caName: string, ext: string): void => {
    openssl(
      ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`],
      dir,
    );
    fs.writeFileSync(path.join(dir, `${name}.ext`), ext);
    openssl(
      [
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        `${caName}.pem`,
        '-CAkey',
        `${caName}.key`,
        '-CAcreateserial',
        '-out',
        `${name}.pem`,
        '-days',
        '2',
        '-extfile',
        `${name}.ext`,
      ],
      dir,
    );
  };
  ca('test-ca');
  ca('stranger-ca');
  leaf('server', 'test-ca', 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  leaf('client', 'test-ca', 'extendedKeyUsage=clientAuth\n');
  leaf('stranger', 'stranger-ca', 'extendedKeyUsage=clientAuth\n');
  const p = (f: string): string => path.join(dir, f);
  return {
    dir,
    caCert: p('test-ca.pem'),
    serverCert: p('server.pem'),
    serverKey: p('server.key'),
    clientCert: p('client.pem'),
    clientKey: p('client.key'),
    strangerCert: p('stranger.pem'),
    strangerKey: p('stranger.key'),
  };
}

/** A TLS-terminating TCP proxy (mTLS: client certificates of the PKI's CA only) in front of `target`. */
export interface TlsProxy {
  address: string;
  /** Connections whose TLS handshake was refused. */
  refused(): number;
  close(): Promise<void>;
}

/** Starts a TLS proxy on 127.0.0.1 that speaks HTTP/2 (gRPC) and forwards to `target` (host:port) in plain TCP. */
export async function startTlsProxy(pki: TestPki, target: string): Promise<TlsProxy> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  let refused = 0;
  const sockets = new Set<net.Socket>();
  const server = tls.createServer(
    {
      cert: fs.readFileSync(pki.serverCert),
      key: fs.readFileSync(pki.serverKey),
      ca: fs.readFileSync(pki.caCert),
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: ['h2'],
    },
    (client) => {
      const upstream = net.connect(port, host);
      sockets.add(client);
      sockets.add(upstream);
      client.pipe(upstream).pipe(client);
      const end = (): void => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on('error', end);
      upstream.on('error', end);
      client.on('close', end);
      upstream.on('close', end);
    },
  );
  server.on('tlsClientError', () => {
    refused += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const addr = server.address() as net.AddressInfo;
  return {
    address: `127.0.0.1:${addr.port}`,
    refused: () => refused,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
