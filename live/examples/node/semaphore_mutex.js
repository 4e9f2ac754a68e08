// A fencelab lock client (docs/protocol.md, fencelab-lock-client/1) over
// redis-semaphore 5.8.0's Mutex, as its users write it: SET NX PX with a
// random identifier on one Redis (ioredis), retried every retryInterval
// until acquireTimeout, and refreshed by a timer every 0.8 lockTimeout
// while held: the lease is renewed while the process runs, so there is no
// fixed end to report, and no token. The row is "renewal".
//
//   fencelab-live run --client-cmd '/usr/bin/node live/examples/node/semaphore_mutex.js' \
//       --service redis --design renewal --fault client-pause
'use strict';
const readline = require('readline');
const Redis = require('ioredis');
const { Mutex } = require('redis-semaphore');

const send = (fields) => process.stdout.write(JSON.stringify(fields) + '\n');
const refuse = (op, err) => send({ op, ok: false, error: String((err && err.message) || err || 'failed').slice(0, 200) || 'failed' });

// ready waits for the client's connection (enableOfflineQueue: false
// refuses commands before it) at most ms.
const ready = (client, ms) => new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('not connected within ' + ms + ' ms')), ms);
  client.once('ready', () => { clearTimeout(timer); resolve(); });
});

// With ioredis's commandTimeout, a refresh that times out (a cut or slow
// link) rejects inside redis-semaphore's refresh timer, unhandled, which
// ends a Node process; a user logs it, and the section goes on.
process.on('unhandledRejection', (err) => console.error('unhandled: ' + (err && err.message)));

async function main() {
  let client = null, mutex = null, key = '', ttl = 0;
  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  for await (const line of lines) {
    const req = JSON.parse(line);
    const op = req.op;
    if (op === 'hello') {
      if (req.v !== 1) { refuse(op, 'unsupported protocol version ' + req.v); continue; }
      const addr = req.addrs[0];
      const [host, port] = [addr.slice(0, addr.lastIndexOf(':')), Number(addr.slice(addr.lastIndexOf(':') + 1))];
      client = new Redis({ host, port, enableOfflineQueue: false, commandTimeout: 500, connectTimeout: 1000 });
      client.on('error', () => {}); // a refused command says it; no crash
      key = req.key; ttl = req.ttl_ms;
      send({ op, ok: true, library: 'redis-semaphore', version: require('redis-semaphore/package.json').version });
    } else if (op === 'acquire') {
      // onLockLost: the default throws from the refresh timer, which ends
      // the process; a user logs it, and the section it is in goes on.
      mutex = new Mutex(client, key, {
        lockTimeout: ttl, acquireTimeout: req.timeout_ms, retryInterval: 10,
        onLockLost: (err) => console.error('lock lost: ' + err.message),
      });
      try {
        if (client.status !== 'ready') await ready(client, req.timeout_ms);
        await mutex.acquire();
        send({ op, ok: true });
      } catch (err) {
        refuse(op, err);
      }
    } else if (op === 'release') {
      try {
        await mutex.release();
        send({ op, ok: true });
      } catch (err) {
        refuse(op, err);
      }
    } else if (op === 'close') {
      break;
    }
  }
  if (client !== null) client.disconnect();
  process.exit(0);
}

main().catch((err) => { console.error(err); process.exit(1); });
