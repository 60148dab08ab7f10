// Bare pass-through proxy: the floor no Node gateway can beat. Run as its own process:
//   node bare-proxy.mjs --upstream=http://127.0.0.1:<port> [--plain] [--cert=FILE --key=FILE]
// HTTPS (node:https, a self-signed EC P-256 certificate made with `selfsigned`, as the gateway
// makes its own) unless --plain, which serves plain HTTP for the comparison with Portkey.
// Every request is forwarded as-is (method, path, headers less hop-by-hop ones) to the upstream
// over a keep-alive http.Agent; the request body and the response are piped, never buffered or
// parsed. Prints `{"event":"listening","url":...}` on stdout.
import { createServer as createHttpServer, request as httpRequest, Agent } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { readFileSync } from 'node:fs';

const arg = (name) => {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? hit.slice(name.length + 3) : undefined;
};
const plain = process.argv.includes('--plain');
const upstream = new URL(arg('upstream') ?? '');
const agent = new Agent({
  keepAlive: true,
  keepAliveMsecs: 60_000,
  maxSockets: 1024,
  maxFreeSockets: 1024,
  scheduling: 'lifo',
});

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'host',
]);
function forwardHeaders(raw) {
  const out = {};
  for (const [name, value] of Object.entries(raw)) if (!HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

function handle(req, res) {
  const headers = forwardHeaders(req.headers);
  headers.host = upstream.host;
  const up = httpRequest(
    { agent, hostname: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
    (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, forwardHeaders(upRes.headers));
      upRes.pipe(res);
    },
  );
  up.on('error', (error) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `upstream: ${error.message}`, type: 'proxy_error' } }));
  });
  // A client that goes away aborts the upstream request.
  res.on('close', () => {
    if (!res.writableFinished) up.destroy();
  });
  req.pipe(up);
}

async function tlsMaterial() {
  const certFile = arg('cert');
  const keyFile = arg('key');
  if (certFile && keyFile) return { cert: readFileSync(certFile), key: readFileSync(keyFile) };
  const { generate } = await import('selfsigned');
  const now = Date.now();
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - 60_000),
    notAfterDate: new Date(now + 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

const server = plain ? createHttpServer(handle) : createHttpsServer(await tlsMaterial(), handle);
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
server.requestTimeout = 0;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(
    JSON.stringify({ event: 'listening', url: `${plain ? 'http' : 'https'}://127.0.0.1:${port}` }) + '\n',
  );
});

process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
