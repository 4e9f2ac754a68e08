#!/usr/bin/python3
"""A fenced store on SQLite, speaking fencelab's resource protocol.

fencelab-store/1 (docs/store-protocol.md): JSON lines on stdin/stdout.
The counter and its fence (the highest token seen) are one row; every
read and write is ONE conditional UPDATE ... WHERE fence <= ?, so the
check and the effect are atomic in the database, and reads raise the
fence too (row `all`: once a newer holder has touched the store, an
older one can do nothing there). Each decision is logged in the same
transaction, in the order it took effect.

    fencelab-live conform-store --store-cmd '/usr/bin/python3 fenced_store.py'
    fencelab-live run --store-cmd '/usr/bin/python3 fenced_store.py' \\
        --service redis --design all --fault client-pause

--unfenced drops the WHERE: the store every write reaches (the bug).
"""
import json
import sqlite3
import sys

UNFENCED = "--unfenced" in sys.argv[1:]
CHECK = "" if UNFENCED else " AND fence <= :token"

db = sqlite3.connect(":memory:", isolation_level=None)
db.executescript("""
    CREATE TABLE register (id INTEGER PRIMARY KEY, counter INTEGER, fence INTEGER);
    CREATE TABLE log (seq INTEGER PRIMARY KEY AUTOINCREMENT, client INTEGER,
                      kind TEXT, token INTEGER, value INTEGER, accepted INTEGER);
""")


def operate(kind, client, token, value=None):
    """One operation, checked and applied by one UPDATE; logged."""
    args = {"token": token, "value": value}
    db.execute("BEGIN IMMEDIATE")
    if kind == "read":
        # Mark before use: the read raises the fence to its token.
        cur = db.execute("UPDATE register SET fence = MAX(fence, :token) WHERE id = 1" + CHECK, args)
    else:
        cur = db.execute("UPDATE register SET counter = :value, fence = MAX(fence, :token) WHERE id = 1" + CHECK, args)
    accepted = cur.rowcount == 1
    if kind == "read":
        value = db.execute("SELECT counter FROM register WHERE id = 1").fetchone()[0] if accepted else 0
    db.execute("INSERT INTO log (client, kind, token, value, accepted) VALUES (?, ?, ?, ?, ?)",
               (client, kind, token, value, int(accepted)))
    db.execute("COMMIT")
    return accepted, value


def reply(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    req = json.loads(line)
    op = req["op"]
    if op == "hello":
        if req["v"] != 1:
            reply({"op": op, "ok": False, "error": "unsupported protocol version %d" % req["v"]})
            continue
        db.execute("INSERT INTO register VALUES (1, ?, 0)", (req["counter"],))
        reply({"op": op, "ok": True, "store": "sqlite3 %s%s" % (sqlite3.sqlite_version, " unfenced" if UNFENCED else "")})
    elif op in ("read", "write"):
        accepted, value = operate(op, req["client"], req["token"], req.get("value"))
        if not accepted:
            reply({"op": op, "ok": False, "refused": True})
        elif op == "read":
            reply({"op": op, "ok": True, "value": value})
        else:
            reply({"op": op, "ok": True})
    elif op == "log":
        rows = db.execute("SELECT client, kind, token, value, accepted FROM log ORDER BY seq")
        reply({"op": op, "ok": True, "ops": [
            {"client": c, "kind": k, "token": t, "value": v, "accepted": bool(a)} for c, k, t, v, a in rows]})
    elif op == "close":
        break
db.close()
