#!/usr/bin/python3
"""A fencelab lock client (docs/protocol.md, fencelab-lock-client/1) over
kazoo's Lock, as its users write it: an ephemeral sequential znode under
the lock's path, granted when it is the lowest, held while the session
lives (a session lock: no validity to report). The token is the lock
node's creation zxid (czxid), as a user who fences reads it; the row is
"revision" (the czxid checked >= by the resource).

Run it as fencelab runs it:
  fencelab-live run --client-cmd '/usr/bin/python3 live/examples/python/kazoo_lock.py' \
      --service zookeeper --design zxid-revision --fault client-pause
"""
import json
import logging
import sys
import threading
import time

import kazoo
from kazoo.client import KazooClient
from kazoo.exceptions import KazooException
from kazoo.handlers.threading import KazooTimeoutError


def reply(**fields):
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


def refuse(op, err):
    reply(op=op, ok=False, error=(str(err) or type(err).__name__)[:200])


def bounded(fn, seconds):
    """fn() within seconds: kazoo's calls wait for a suspended connection
    (a server paused or cut) with no bound of their own."""
    box = {}

    def run():
        try:
            box["value"] = fn()
        except Exception as err:  # handed to the caller
            box["error"] = err
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise TimeoutError("no answer within %d ms" % (seconds * 1000))
    if "error" in box:
        raise box["error"]
    return box["value"]


def main():
    logging.basicConfig(level=logging.ERROR)
    client = lock = None
    for line in sys.stdin:
        req = json.loads(line)
        op = req["op"]
        if op == "hello":
            if req["v"] != 1:
                refuse(op, "unsupported protocol version %s" % req["v"])
                continue
            # The session timeout is the lease: ZooKeeper ends the session
            # (and deletes the lock node) that long after its last ping.
            client = KazooClient(hosts=",".join(req["addrs"]), timeout=req["ttl_ms"] / 1000,
                                 command_retry={"max_tries": 3}, connection_retry={"max_tries": -1})
            lock = client.Lock("/fencelab/" + req["key"], identifier=req["client"])
            reply(op=op, ok=True, library="kazoo", version=kazoo.version.__version__)
        elif op == "acquire":
            deadline = time.monotonic() + req["timeout_ms"] / 1000
            left = lambda: max(deadline - time.monotonic(), 0.001)
            try:
                if not client.connected:
                    bounded(client.start, left())  # connects at first use
                if lock.is_acquired:  # an acquire that timed out got it later
                    bounded(lock.release, left())
                if bounded(lambda: lock.acquire(timeout=left()), left()):
                    stat = bounded(lambda: client.exists(lock.path + "/" + lock.node), left())
                    reply(op=op, ok=True, token=stat.czxid)
                else:
                    refuse(op, "not granted within %d ms" % req["timeout_ms"])
            except (KazooException, KazooTimeoutError, TimeoutError) as err:
                lock.cancel()
                refuse(op, err)
        elif op == "release":
            try:
                bounded(lock.release, req["timeout_ms"] / 1000)
                reply(op=op, ok=True)
            except (KazooException, KazooTimeoutError, TimeoutError) as err:
                refuse(op, err)
        elif op == "close":
            break
    if client is not None:
        client.stop()
        client.close()


if __name__ == "__main__":
    main()
