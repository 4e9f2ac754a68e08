#!/usr/bin/python3
"""A fencelab lock client (docs/protocol.md, fencelab-lock-client/1) over
redis-py's Lock, as its users write it: SET key <random token> NX PX ttl,
retried every 0.1 s (redis-py's interval; the loop is ours, to time the
attempt that won), released by a Lua script that deletes the key only if
it still holds this token. No fencing token: the
row is "off" (no-fencing); safety rests on the TTL alone.

Run it as fencelab runs it:
  fencelab-live run --client-cmd '/usr/bin/python3 live/examples/python/redis_lock.py' \
      --service redis --design off --fault client-pause
"""
import json
import sys
import time

import redis


def reply(**fields):
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


def refuse(op, err):
    reply(op=op, ok=False, error=(str(err) or type(err).__name__)[:200])


def main():
    client = lock = None
    ttl_ms = 0
    for line in sys.stdin:
        req = json.loads(line)
        op = req["op"]
        if op == "hello":
            if req["v"] != 1:
                refuse(op, "unsupported protocol version %s" % req["v"])
                continue
            host, port = req["addrs"][0].rsplit(":", 1)
            client = redis.Redis(host=host, port=int(port),
                                 socket_timeout=1, socket_connect_timeout=1)
            ttl_ms = req["ttl_ms"]
            lock = client.lock(req["key"], timeout=ttl_ms / 1000)
            reply(op=op, ok=True, library="redis-py", version=redis.__version__)
        elif op == "acquire":
            # Non-blocking attempts, timed: what is left of the lease is
            # the TTL minus the time since the attempt that won began.
            deadline = time.monotonic() + req["timeout_ms"] / 1000
            try:
                while True:
                    began = time.monotonic()
                    if lock.acquire(blocking=False):
                        left = ttl_ms - int((time.monotonic() - began) * 1000)
                        if left > 0:  # else it ran out already: try again
                            reply(op=op, ok=True, validity_ms=left)
                            break
                    if began + 0.1 > deadline:
                        refuse(op, "not granted within %d ms" % req["timeout_ms"])
                        break
                    time.sleep(0.1)  # redis-py's own retry interval
            except redis.RedisError as err:
                refuse(op, err)
        elif op == "release":
            try:
                lock.release()
                reply(op=op, ok=True)
            except redis.RedisError as err:  # LockNotOwnedError: expired
                refuse(op, err)
        elif op == "close":
            break
    if client is not None:
        client.close()


if __name__ == "__main__":
    main()
