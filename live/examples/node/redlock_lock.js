// A fencelab lock client (docs/protocol.md, fencelab-lock-client/1) over
// redlock 4.2.0, as its users write it: the lock SET NX PX on each of five
// independent Redis masters (ioredis clients), granted on a majority
// within the TTL less the clock drift, released on all. No fencing token:
// the row is "redlock". Its validity is the library's own: lock.expiration
// (the attempt's start + TTL - drift) minus now.
//
//   fencelab-live run --client-cmd '/usr/bin/node live/examples/node/redlock_lock.js' \
//       --service redlock --design redlock --fault client-pause
'use strict';
const readline = require('readline');
const Redis = require('ioredis');
const Redlock = require('redlock');

const send = (fields) => process.stdout.write(JSON.stringify(fields) + '\n');
const refuse = (op, err) => send({ op, ok: false, error: String((err && err.message) || err || 'failed').slice(0, 200) || 'failed' });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  let clients = [], redlock = null, lock = null, key = '', ttl = 0;
  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  for await (const line of lines) {
    const req = JSON.parse(line);
    const op = req.op;
    if (op === 'hello') {
      if (req.v !== 1) { refuse(op, 'unsupported protocol version ' + req.v); continue; }
      clients = req.addrs.map((addr) => {
        const [host, port] = [addr.slice(0, addr.lastIndexOf(':')), Number(addr.slice(addr.lastIndexOf(':') + 1))];
        const c = new Redis({ host, port, enableOfflineQueue: false, commandTimeout: 500, connectTimeout: 1000 });
        c.on('error', () => {}); // a node down is a missing vote, not a crash
        return c;
      });
      // retryCount 0: one attempt per lock(); the loop below retries, with
      // redlock's default delay and jitter, until the request's timeout.
      redlock = new Redlock(clients, { retryCount: 0 });
      redlock.on('clientError', () => {});
      key = req.key; ttl = req.ttl_ms;
      send({ op, ok: true, library: 'redlock', version: require('redlock/package.json').version });
    } else if (op === 'acquire') {
      const deadline = Date.now() + req.timeout_ms;
      lock = null;
      let lastErr = 'not granted';
      while (lock === null) {
        try {
          const l = await redlock.lock(key, ttl);
          if (l.expiration - Date.now() >= 1) lock = l;
        } catch (err) {
          lastErr = err;
        }
        if (lock === null && Date.now() + 400 > deadline) break;
        if (lock === null) await sleep(200 + Math.floor((Math.random() * 2 - 1) * 200));
      }
      if (lock === null) refuse(op, lastErr);
      else send({ op, ok: true, value: lock.value, validity_ms: Math.max(1, lock.expiration - Date.now()) });
    } else if (op === 'release') {
      try {
        await lock.unlock();
        send({ op, ok: true });
      } catch (err) {
        refuse(op, err);
      }
    } else if (op === 'close') {
      break;
    }
  }
  clients.forEach((c) => c.disconnect());
  process.exit(0);
}

main().catch((err) => { console.error(err); process.exit(1); });
