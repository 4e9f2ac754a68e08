#!/usr/bin/env python3
"""Turns app.log's lock lines into a fencelab history (docs/history.md).
Usage: logs2history.py DESIGN TTL_MS < app.log > history.jsonl"""
import datetime, json, sys
VERBS = {"acquire": ("acquire", "call", False), "acquired": ("acquire", "return", True),
         "read": ("read", "call", False), "read-ok": ("read", "return", True), "read-refused": ("read", "return", False),
         "write": ("write", "call", False), "write-ok": ("write", "return", True), "write-refused": ("write", "return", False),
         "release": ("release", "call", False), "released": ("release", "return", True),
         "expired": ("expire", "return", False)}  # the worker saw its lease end and gave the section up
def ns(stamp):  # an ISO time as UnixNano, in integers (a float loses the nanoseconds)
    t = datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return int(t.replace(microsecond=0).timestamp()) * 10**9 + t.microsecond * 1000
clients, called, lines = {}, {}, []
for text in sys.stdin:
    stamp, worker, verb, *fields = text.split()
    wall, c, kv = ns(stamp), clients.setdefault(worker, len(clients)), dict(f.split("=", 1) for f in fields)
    if verb == "gc-pause":  # a pause the runtime logged: a fault of the history
        end = wall + int(kv["ms"]) * 10**6
        lines.append({"kind": "fault", "fault": "client-pause", "target": "c%d" % (c + 1), "start": wall, "end": end, "detail": "GC pause"})
        continue
    op, ev, ok = VERBS[verb]
    rec = {"kind": "op", "client": c, "op": op, "ev": ev, "wall": wall, "token": int(kv.get("token", 0)), "value": int(kv.get("value", 0)), "ok": ok}
    if ev == "call":
        called[c] = wall
    if "valid_ms" in kv:  # the grant's validity, from the acquire's call (the send rule)
        rec["validity"] = int(kv["valid_ms"]) * 10**6
        rec["valid_until"] = called[c] + rec["validity"]
    lines.append(rec)
walls = [l.get("wall", l.get("end")) for l in lines]
print(json.dumps({"kind": "run", "version": 1, "start": min(walls), "end": max(walls), "clients": len(clients),
                  "design": sys.argv[1], "ttl_ns": int(sys.argv[2]) * 10**6}))
for l in lines:
    print(json.dumps(l))
