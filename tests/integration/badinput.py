"""Load, expand and run the bad-input cases in tests/integration/badinput/.

Cases are data (RELIABILITY.md §1): badinput/*.json hold explicit cases
("cases") and templates ("templates") that this module expands into
systematic variants (every truncation of each request body, every wrong
StructureSize, a range of unknown commands, ...).  badinput/commands.json
says how to send a well-formed request of each command (stage and args).

Case schema (see README.md for the long form):
  id       unique name (the pytest id)
  stage    pre-negotiate | after-negotiate | after-ntlm-challenge |
           after-session | after-tree | after-open | after-open-dir |
           after-open-rw (SCRATCH_FILE opened for writing on the
           writable share SCRATCH_SHARE)
  dialects optional dialect list for the stage's NEGOTIATE
  request  one request: {cmd, args, hdr, body_hex, body_truncate,
           body_append_hex, patch, pdu_hex, pdu_truncate, nbt, drip}
  requests several requests; "segment": "one" sends them in one write
  compound requests chained with NextCommand (8-byte aligned)
  send_hex raw bytes to send as they are (NBT header included)
  expect   status | status_any (+ or_disconnect) | statuses |
           disconnect | no_response, and optional dialect check
  ref      where the expectation comes from (MS-SMB2 / RELIABILITY item)
  slow     only run with RINGSMB_SLOW=1
"""
import json
import os
import socket
import struct
import time
from pathlib import Path

import rawsmb as R

DATA_DIR = Path(__file__).resolve().parent / "badinput"
STAGES = ("pre-negotiate", "after-negotiate", "after-ntlm-challenge",
          "after-session", "after-tree", "after-open", "after-open-dir",
          "after-open-rw")
# The writable share the bad-input server serves besides [share], and the
# file in it that after-open-rw opens with read and write access.
SCRATCH_SHARE = "scratch"
SCRATCH_FILE = "w.bin"
RW_ACCESS = 0x0012019F
REPLY_TIMEOUT = 2.0      # seconds to wait for a reply
CLOSE_TIMEOUT = 3.0      # seconds a "disconnect" expectation waits
QUIET_TIME = 0.5         # "no_response": silence for this long
BOGUS_ID = 0x0123456789ABCDEF


class CaseError(Exception):
    pass


# ------------------------------------------------------------------ loading

def load_json(name):
    with open(DATA_DIR / name) as f:
        return json.load(f)


def command_table():
    return load_json("commands.json")["commands"]


def load_cases():
    cases = []
    for path in sorted(DATA_DIR.glob("*.json")):
        if path.name in ("commands.json", "samba-knownfail.json",
                         "ringsmb-knownfail.json"):
            continue
        data = json.loads(path.read_text())
        for c in data.get("cases", []):
            c = dict(c)
            c["file"] = path.name
            cases.append(c)
        for t in data.get("templates", []):
            for c in expand_template(t):
                c["file"] = path.name
                cases.append(c)
    seen = set()
    for c in cases:
        validate_case(c)
        if c["id"] in seen:
            raise CaseError("duplicate case id %s" % c["id"])
        seen.add(c["id"])
    return cases


def samba_knownfail():
    return load_json("samba-knownfail.json")["knownfail"]


def ringsmb_knownfail():
    """Cases ringsmb knowingly fails, each with its reason (strict xfail:
    a case that starts passing must be taken off the list)."""
    return load_json("ringsmb-knownfail.json")["knownfail"]


def validate_case(c):
    for key in ("id", "stage", "expect", "ref"):
        if key not in c:
            raise CaseError("case %s lacks %r" % (c.get("id"), key))
    if c["stage"] not in STAGES:
        raise CaseError("case %s: unknown stage %s" % (c["id"], c["stage"]))
    if not any(k in c for k in ("request", "requests", "compound",
                                "send_hex")):
        raise CaseError("case %s sends nothing" % c["id"])
    e = c["expect"]
    if not any(k in e for k in ("status", "status_any", "statuses",
                                "disconnect", "no_response")):
        raise CaseError("case %s expects nothing" % c["id"])
    if e.get("status_any") == [] or (
            e.get("or_disconnect") and not (e.get("status_any")
                                            or e.get("status"))):
        raise CaseError("case %s accepts everything" % c["id"])


def _int(v):
    if isinstance(v, str) and v.startswith("0x"):
        return int(v, 16)
    return v


def expand_template(t):
    kind = t["template"]
    table = command_table()
    out = []

    def base(cmd):
        b = table[cmd]
        return {"stage": b["stage"], "request": {"cmd": cmd,
                                                 "args": dict(b["args"])}}

    if kind == "body-truncations":
        for cmd in t["commands"]:
            if t.get("sample"):
                fl = R.FIXED_LEN[cmd]
                lengths = sorted({0, 1, 2, 3, fl // 2, fl - 2, fl - 1})
            else:
                lengths = range(R.FIXED_LEN[cmd])
            for n in lengths:
                c = base(cmd)
                c["request"]["body_truncate"] = n
                exp = t.get("expect_for", {}).get(cmd, t["expect"])
                if n < 2 and "expect_no_structure_size" in t:
                    exp = t["expect_no_structure_size"]
                c.update(id="%s-%s-body-%d" % (t["prefix"], cmd.lower(), n),
                         expect=exp, ref=t["ref"])
                if "stage_for" in t and cmd in t["stage_for"]:
                    c["stage"] = t["stage_for"][cmd]
                out.append(c)
    elif kind == "structure-sizes":
        for cmd in t["commands"]:
            ss = R.STRUCTURE_SIZE[cmd]
            vals = sorted({v for v in (0, 1, ss - 1, ss + 1, ss + 2, 0xFFFF)
                           if 0 <= v <= 0xFFFF and v != ss and not (
                               cmd == "OPLOCK_BREAK" and v in (36, 44))})
            for v in vals:
                c = base(cmd)
                c["request"]["args"]["structure_size"] = v
                c.update(id="%s-%s-ss-%d" % (t["prefix"], cmd.lower(), v),
                         expect=t.get("expect_for", {}).get(cmd, t["expect"]),
                         ref=t["ref"])
                if "stage_for" in t and cmd in t["stage_for"]:
                    c["stage"] = t["stage_for"][cmd]
                out.append(c)
    elif kind == "commands":
        cmds = []
        for r in t["ranges"]:
            lo, hi, step = _int(r[0]), _int(r[1]), _int(r[2]) if len(r) > 2 \
                else 1
            cmds.extend(range(lo, hi + 1, step))
        for stage in t["stages"]:
            for cmd in cmds:
                out.append({
                    "id": "%s-%s-0x%04x" % (t["prefix"], stage, cmd),
                    "stage": stage,
                    "request": {"cmd": cmd, "body_hex": t["body_hex"]},
                    "expect": t["expect_for"].get(stage, t["expect"]),
                    "ref": t["ref"]})
    elif kind == "values":
        # one case per value of one field: {"field": "args.x" | "hdr.x"
        # | "nbt.length" | "pdu_truncate", "values": [...]}
        for v in t["values"]:
            vid = None
            if isinstance(v, list):        # [id suffix, value]
                vid, v = v
            c = json.loads(json.dumps(t["base"]))
            where, _, name = t["field"].partition(".")
            req = c["request"]
            if name:
                req.setdefault(where, {})[name] = v
            else:
                req[where] = v
            if vid is None:
                vid = v if isinstance(v, str) else str(v)
            c.update(id="%s-%s" % (t["prefix"], vid.lower()),
                     expect=t["expect"], ref=t["ref"])
            out.append(c)
    else:
        raise CaseError("unknown template kind %s" % kind)
    return out


# ------------------------------------------------------------------ running

class Ctx:
    """Values a case can refer to with $names."""

    def __init__(self, tree):
        self.fid = None
        self.dir_fid = None
        rel = str(tree.secret).lstrip("/").replace("/", "\\")
        self.subst = {
            "@SECRET_FROM_ROOT@": rel,
            "@SIBLING@": tree.sibling.name,
        }

    def value(self, v, conn):
        if isinstance(v, str):
            if v == "$fid":
                return self.fid
            if v == "$dir_fid":
                return self.dir_fid
            if v == "$related_fid":
                return R.RELATED_FID
            if v == "$bogus_fid":
                return struct.pack("<QQ", BOGUS_ID, BOGUS_ID + 1)
            if v == "$bogus_id":
                return BOGUS_ID
            if v == "$prev_mid":
                return conn.next_mid - 1
            if v == "$far_mid":
                return conn.next_mid + 100000
            if v == "$max_read_plus_1":
                return conn.max_read + 1
            if v == "$max_write_plus_1":
                return conn.max_write + 1
            if v == "$max_transact_plus_1":
                return conn.max_transact + 1
            if v == "$spnego_ntlm_negotiate":
                return R.spnego_init(R.ntlm_negotiate())
            for k, s in self.subst.items():
                v = v.replace(k, s)
            return _int(v)
        if isinstance(v, list):
            return [self.value(x, conn) for x in v]
        if isinstance(v, dict):
            return {k: self.value(x, conn) for k, x in v.items()}
        return v


def build_blob(spec, ctx, conn):
    """A security blob spec: hex string, or {"spnego_init": ntlm},
    {"spnego_resp": ntlm}, {"ntlm_authenticate": {...}}, ..."""
    if isinstance(spec, str):
        return bytes.fromhex(spec)
    if "nested" in spec:
        # {"nested": {"tag": "30", "depth": N, "inner": hex}}
        n = spec["nested"]
        blob = bytes.fromhex(n.get("inner", "0500"))
        for _ in range(n["depth"]):
            blob = R.der(int(n["tag"], 16), blob)
        return blob
    if "spnego_init" in spec:
        inner = spec["spnego_init"]
        oid = bytes.fromhex(spec["oid_hex"]) if "oid_hex" in spec \
            else R.OID_NTLMSSP
        return R.spnego_init(build_blob(inner, ctx, conn), oid)
    if "spnego_resp" in spec:
        return R.spnego_resp(build_blob(spec["spnego_resp"], ctx, conn))
    if "ntlm_negotiate" in spec:
        a = ctx.value(spec["ntlm_negotiate"], conn)
        if "signature" in a:
            a["signature"] = bytes.fromhex(a["signature"])
        return R.ntlm_negotiate(**a)
    if "ntlm_authenticate" in spec:
        a = ctx.value(spec["ntlm_authenticate"], conn)
        if "signature" in a:
            a["signature"] = bytes.fromhex(a["signature"])
        for k in ("user", "domain", "workstation"):
            if k + "_str" in a:
                a[k] = R.utf16(a.pop(k + "_str"))
        return R.ntlm_authenticate(**a)
    raise CaseError("bad blob spec %r" % spec)


def build_pdu(req, ctx, conn):
    """The PDU bytes (no NBT header) of one request spec."""
    if "pdu_hex" in req:
        return bytes.fromhex(req["pdu_hex"])
    cmd = req["cmd"]
    cmd_num = R.CMD[cmd] if isinstance(cmd, str) else _int(cmd)
    if "body_hex" in req:
        body = bytes.fromhex(req["body_hex"])
    else:
        args = ctx.value(dict(req.get("args", {})), conn)
        if "blob" in args:
            args["blob"] = build_blob(req["args"]["blob"], ctx, conn)
        if "contexts" in args and cmd == "NEGOTIATE":
            args["contexts"] = [negotiate_context(c) for c in args["contexts"]]
        body = R.body_for(cmd, **args)
    if "body_truncate" in req:
        body = body[:req["body_truncate"]]
    body += bytes.fromhex(req.get("body_append_hex", ""))
    hdr = ctx.value(dict(req.get("hdr", {})), conn)
    pdu = conn.pdu(cmd_num, body, **hdr)
    for off, hexv in req.get("patch", []):
        b = bytes.fromhex(hexv)
        pdu = pdu[:off] + b + pdu[off + len(b):]
    if "pdu_truncate" in req:
        pdu = pdu[:req["pdu_truncate"]]
    return pdu


def negotiate_context(c):
    """A negotiate context spec: {"preauth": {...}} / {"encryption": {...}}
    / {"signing": {...}} / {"type": n, "data": hex, ...}."""
    if "preauth" in c:
        d = dict(c["preauth"])
        out = {"type": R.CTX_PREAUTH, "data": R.ctx_preauth(**d)}
    elif "encryption" in c:
        out = {"type": R.CTX_ENCRYPTION,
               "data": R.ctx_encryption(**c["encryption"])}
    elif "signing" in c:
        out = {"type": R.CTX_SIGNING, "data": R.ctx_signing(**c["signing"])}
    else:
        out = {"type": _int(c["type"]), "data": bytes.fromhex(c.get("data",
                                                                   ""))}
    for k in ("data_length", "reserved", "pad"):
        if k in c:
            out[k] = _int(c[k])
    return out


def frame(req, pdu):
    n = req.get("nbt", {})
    length = len(pdu) + n.get("length_delta", 0)
    length = _int(n.get("length", length))
    return R.nbt(pdu, length, _int(n.get("byte0", 0)))


def compound(reqs, ctx, conn):
    pdus = [build_pdu(r, ctx, conn) for r in reqs]
    out = b""
    for i, (r, p) in enumerate(zip(reqs, pdus)):
        last = i == len(pdus) - 1
        if not last:
            p += b"\0" * R.pad8(len(p))
        nxt = r.get("hdr", {}).get("next_command")
        if nxt is None:
            nxt = 0 if last else len(p)
        p = p[:20] + struct.pack("<I", _int(nxt)) + p[24:]
        out += p
    return out


def reach_stage(conn, case, ctx):
    stage = STAGES.index(case["stage"])
    dialects = [_int(d) for d in case.get("dialects", R.ALL_DIALECTS)]
    if stage >= 1:
        conn.negotiate(dialects)
    if stage == 2:
        conn.session_setup_first()
    if stage >= 3:
        conn.session_setup_anonymous()
    if stage >= 4:
        conn.tree_connect(SCRATCH_SHARE if stage == 7 else "share")
    if stage == 5:
        ctx.fid = conn.create("probe.txt")
    if stage == 6:
        ctx.dir_fid = conn.open_dir("")
    if stage == 7:
        ctx.fid = conn.create(SCRATCH_FILE, desired_access=RW_ACCESS)


def send_case(conn, case, ctx):
    """Send what the case sends; returns the number of replies expected
    when the case lists several."""
    if "send_hex" in case:
        conn.send(bytes.fromhex(case["send_hex"]))
        return
    if "compound" in case:
        data = R.nbt(compound(case["compound"], ctx, conn))
        conn.send(data)
        return
    reqs = case.get("requests") or [case["request"]]
    frames = [frame(r, build_pdu(r, ctx, conn)) for r in reqs]
    if case.get("segment") == "one":
        frames = [b"".join(frames)]
    for r, f in zip(reqs, frames):
        drip = r.get("drip")
        if drip:
            head = f[:drip.get("max_bytes", len(f))]
            step = drip.get("chunk", 1)
            for i in range(0, len(head), step):
                conn.send(head[i:i + step])
                time.sleep(drip.get("interval_ms", 50) / 1000.0)
            conn.send(f[len(head):])
        else:
            conn.send(f)


def observe(conn, case):
    """What the server did: ("responses", [...]), ("disconnect", frames)
    or ("timeout", None)."""
    e = case["expect"]
    timeout = case.get("timeout", REPLY_TIMEOUT)
    if e.get("no_response"):
        try:
            rs = conn.recv(QUIET_TIME)
            return ("responses", rs)
        except R.NoResponse:
            return ("silence", None)
        except R.Disconnected:
            return ("disconnect", [])
    if e.get("disconnect") and not (e.get("status") or e.get("status_any")):
        try:
            return ("disconnect", conn.wait_closed(case.get("timeout",
                                                            CLOSE_TIMEOUT)))
        except R.NoResponse:
            return ("timeout", None)
    want = len(e.get("statuses", [None]))
    got = []
    try:
        for _ in range(want):
            got.extend(conn.recv(timeout))
            if len(got) >= want:
                break
    except R.Disconnected:
        return ("disconnect", got)
    except R.NoResponse:
        if got:
            return ("responses", got)
        return ("timeout", None)
    return ("responses", got)


def describe(outcome):
    kind, val = outcome
    if kind == "responses":
        return "responses %s" % ", ".join("%s(%s)" % (
            R.CMD_NAME.get(r.command, r.command), r.status_name) for r in val)
    if kind == "disconnect":
        return "disconnect" + (" after %d frame(s)" % len(val) if val else "")
    return kind


def check(case, outcome, conn):
    """None if the outcome is what the case expects, else a message."""
    e = case["expect"]
    kind, val = outcome
    bad = "expected %s, got %s" % (json.dumps(e), describe(outcome))
    if e.get("no_response"):
        if kind != "silence":
            return bad
        # the connection must still work
        try:
            r = conn.request("ECHO")
        except (R.Disconnected, R.NoResponse) as ex:
            return "no reply as expected, but ECHO afterwards: %s" % ex
        return None if r.status == 0 else "ECHO afterwards: %r" % r
    if kind == "disconnect":
        if not (e.get("disconnect") or e.get("or_disconnect")):
            return bad
        for f in val:     # error replies before the close are allowed
            if f[:4] == R.SMB2_PROTOCOL_ID and len(f) >= 64 and \
                    struct.unpack_from("<I", f, 8)[0] == 0:
                return bad + " (a success reply before the close)"
        return None
    if kind != "responses":
        return bad
    if e.get("disconnect") and not (e.get("status") or e.get("status_any")):
        return bad
    if "statuses" in e:
        # each element: a status name or a list of acceptable names
        want = [w if isinstance(w, list) else [w] for w in e["statuses"]]
        names = [r.status_name for r in val]
        ok = len(names) == len(want) and all(
            n in w for n, w in zip(names, want))
        return None if ok else bad
    r = val[0]
    allowed = e.get("status_any") or [e["status"]]
    if r.status_name not in allowed and "0x%08X" % r.status not in allowed:
        return bad
    if "dialect" in e:
        d = r.u16(4)
        if d != _int(e["dialect"]):
            return "dialect 0x%04x, expected %s" % (d, e["dialect"])
    return None


def probe(srv):
    """A fresh client must get through NEGOTIATE → SESSION_SETUP →
    TREE_CONNECT → CREATE → READ with the right bytes."""
    from conftest import PROBE_DATA, PROBE_NAME
    with R.Conn(srv.host, srv.port, timeout=REPLY_TIMEOUT) as c:
        c.negotiate()
        c.session_setup_anonymous()
        c.tree_connect()
        fid = c.create(PROBE_NAME)
        data = c.read(fid, 0, 4096)
        c.close_file(fid)
    if data != PROBE_DATA:
        raise AssertionError("probe read returned %r" % data[:80])


def run_case(srv, case, tree):
    ctx = Ctx(tree)
    with R.Conn(srv.host, srv.port, timeout=REPLY_TIMEOUT) as conn:
        try:
            reach_stage(conn, case, ctx)
        except (R.Disconnected, R.NoResponse, R.ProtocolError) as ex:
            raise AssertionError("could not reach stage %s: %s"
                                 % (case["stage"], ex))
        try:
            send_case(conn, case, ctx)
            outcome = observe(conn, case)
        except R.Disconnected:
            outcome = ("disconnect", [])
        except R.ProtocolError as ex:
            outcome = ("garbage: %s" % ex, None)
        msg = check(case, outcome, conn)
    return msg


def server_socket_alive(host, port):
    try:
        with socket.create_connection((host, port), 1.0):
            return True
    except OSError:
        return False


def slow_enabled():
    return os.environ.get("RINGSMB_SLOW") == "1"
