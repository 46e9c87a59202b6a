# rea's Hopper bridge. Hopper runs it (through the bootstrap rea writes into
# the session's private root) on its own Python thread after loading the
# target. It serves one connection on a Unix socket, one request at a time,
# in newline-delimited JSON (PROVIDERS.md §2.3):
#
#   request   {"id": int >= 0, "token": str, "method": str, "params": {}}
#   per authenticated request, in order:
#     {"id", "event": {"type": "progress", "phase": "hopper_bridge", "completed": 0, "total": 1, "message": ...}}
#     {"id", "event": {... "completed": 1, "terminal": true}}  or  {"id", "event": {"type": "diagnostic", "error": E}}
#     {"id", "result": ...}  or  {"id", "error": E}
#   E = {"code": -32000, "message": <= 512 chars, "type": capability_unavailable | authorization |
#        invalid_request | bridge_exception}
#
# The protocol layer (framing, the token check, exact parameter sets, error
# types, limits) does not touch Hopper and is tested with a stub document
# (bridge/test/test_protocol.py). The Hopper-facing layer (class HopperDoc)
# uses only Hopper's documented Python API; a call that this Hopper build
# lacks answers capability_unavailable, never invented data.

import hmac
import json
import os
import socket
import sys

NAME = "REA Hopper bridge"
VERSION = "1.0.0"
MAX_LINE = 10 * 1024 * 1024
MAX_MESSAGE = 512
PAGE_MAX = 500
PAGE_DEFAULT = 100
READ_MAX = 4096
READ_DEFAULT = 256
MAX_VALUE = 1024
BODY_DEFAULT = 10000
BODY_MAX = 100000
MAX_ANNOTATION = 4096
ANNOTATION_KINDS = ("name", "comment", "inline_comment")


class BridgeError(Exception):
    """An error answered to the client with its type."""

    def __init__(self, kind, message):
        Exception.__init__(self, message)
        self.kind = kind


def error_body(kind, message):
    message = str(message) or kind
    if len(message) > MAX_MESSAGE:
        message = message[:MAX_MESSAGE]
    return {"code": -32000, "message": message, "type": kind}


def _int(params, key, default, lo, hi):
    v = params.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int):
        raise BridgeError("invalid_request", "%s must be an integer" % key)
    if v < lo or v > hi:
        raise BridgeError("invalid_request", "%s must be from %d to %d" % (key, lo, hi))
    return v


def _address(params, key):
    v = params.get(key)
    if not isinstance(v, str) or len(v) > 64:
        raise BridgeError("invalid_request", "%s must be a hexadecimal address string" % key)
    try:
        a = int(v, 16)
    except ValueError:
        raise BridgeError("invalid_request", "%s must be a hexadecimal address string" % key)
    if a < 0 or a >= 1 << 64:
        raise BridgeError("invalid_request", "%s is out of range" % key)
    return a


def _exact(params, keys):
    if not isinstance(params, dict) or set(params.keys()) != set(keys):
        raise BridgeError("invalid_request", "params must have exactly the keys %s" % ", ".join(sorted(keys)) if keys else "params must be empty")


def _page(items, params):
    offset = _int(params, "offset", 0, 0, 1 << 31)
    limit = _int(params, "limit", PAGE_DEFAULT, 1, PAGE_MAX)
    part = items[offset:offset + limit]
    nxt = offset + len(part)
    more = nxt < len(items)
    return {"items": part, "offset": offset, "limit": limit, "total": len(items),
            "next_offset": nxt if more else None, "has_more": more}


def _hex(a):
    return "0x%x" % a


def _value(s):
    s = s if isinstance(s, str) else str(s)
    return s[:MAX_VALUE], len(s) > MAX_VALUE


_STOPS = ("hlt", "int3", "ud2", "brk", "udf")


def classify(mnemonic, operands):
    """How control leaves an instruction (x86 and AArch64 mnemonics): flow
    is "", call, jump, branch, return or stop; target is the direct target,
    when the operand is a plain address."""
    m = mnemonic.lower().split(" ")[-1]
    target = None
    op = operands.strip()
    if op.lower().startswith("0x"):
        try:
            target = int(op, 16)
        except ValueError:
            target = None
    if m.startswith("call") or m in ("bl", "blr"):
        return "call", target if m != "blr" else None
    if m.startswith("ret") or m in ("iret", "iretq", "eret"):
        return "return", None
    if m in _STOPS:
        return "stop", None
    if m in ("jmp", "b", "br"):
        return "jump", target if m != "br" else None
    if (m.startswith("j") and m != "jmp") or m.startswith("b.") or m in ("cbz", "cbnz", "tbz", "tbnz", "loop", "loope", "loopne"):
        if m in ("cbz", "cbnz", "tbz", "tbnz"):
            last = op.split(",")[-1].strip()
            try:
                target = int(last, 16) if last.lower().startswith("0x") else None
            except ValueError:
                target = None
        return "branch", target
    return "", None


class Session(object):
    """The protocol: dispatch, exact parameters, paging. doc is a HopperDoc
    or, in the tests, a stub with the same methods."""

    def __init__(self, doc, token, run_id):
        self.doc = doc
        self.token = token
        self.run_id = run_id
        self.done = False
        self.cache = {}
        self.methods = {
            "health": ([], self.health),
            "shutdown": ([], self.shutdown),
            "shutdown_document": ([], self.shutdown),
            "list_documents": ([], self.list_documents),
            "list_segments": ([], self.list_segments),
            "list_procedures": (["offset", "limit"], self.list_procedures),
            "list_names": (["offset", "limit"], self.list_names),
            "list_strings": (["offset", "limit"], self.list_strings),
            "read_bytes": (["address", "length"], self.read_bytes),
            "procedure_pseudo_code": (["procedure"], self.pseudo_code),
            "procedure_body": (["procedure", "max_instructions"], self.procedure_body),
            "get_annotation": (["kind", "address"], self.get_annotation),
            "set_annotation": (["kind", "address", "text"], self.set_annotation),
            "remove_annotation": (["kind", "address"], self.remove_annotation),
        }

    # --- methods ---------------------------------------------------------

    def health(self, p):
        return {"name": NAME, "version": VERSION, "run_id": self.run_id}

    def shutdown(self, p):
        self.done = True
        return {"shutdown": True, "analysis_stopped": True, "document_closed": False}

    def _ready(self):
        if self.doc.analysing():
            raise BridgeError("capability_unavailable", "Hopper's background analysis is still running")

    def _inventory(self, name, build):
        self._ready()
        if name not in self.cache:
            self.cache[name] = build()
        return self.cache[name]

    def list_documents(self, p):
        return [self.doc.name()]

    def list_segments(self, p):
        self._ready()
        out = []
        for s in sorted(self.doc.segments(), key=lambda s: s["start"]):
            out.append({"name": s["name"], "start": _hex(s["start"]), "end": _hex(s["start"] + s["length"]),
                        "file_offset": s.get("file_offset"), "file_bytes": s.get("file_bytes", 0)})
        return out

    def _addressed(self, pairs):
        items = []
        for a, v in sorted(pairs, key=lambda x: (x[0], x[1])):
            value, cut = _value(v)
            items.append({"address": _hex(a), "value": value, "value_truncated": cut})
        return items

    def list_procedures(self, p):
        def build():
            items = []
            for a, v, end in sorted(self.doc.procedures(), key=lambda x: (x[0], x[1])):
                value, cut = _value(v)
                items.append({"address": _hex(a), "value": value, "value_truncated": cut,
                              "end": _hex(end) if end is not None and end >= a else None})
            return items
        return _page(self._inventory("procedures", build), p)

    def procedure_body(self, p):
        addr = _address(p, "procedure")
        limit = _int(p, "max_instructions", BODY_DEFAULT, 1, BODY_MAX)
        self._ready()
        procs = dict((a, end) for a, _, end in self.doc.procedures())
        if addr not in procs:
            raise BridgeError("invalid_request", "no procedure starts at %s" % _hex(addr))
        end = procs[addr] if procs[addr] is not None and procs[addr] >= addr else addr
        items = []
        truncated = False
        for a, length, mnemonic, operands in self.doc.instructions(addr, end):
            if len(items) == limit:
                truncated = True
                break
            if length < 1:
                raise BridgeError("bridge_exception", "Hopper reported an empty instruction at %s" % _hex(a))
            flow, target = classify(mnemonic, operands)
            items.append({"address": _hex(a), "length": length, "mnemonic": mnemonic.lower(), "operands": operands,
                          "flow": flow, "target": _hex(target) if target is not None else None})
        return {"start": _hex(addr), "end": _hex(end), "instructions": items, "truncated": truncated}

    def list_names(self, p):
        return _page(self._inventory("names", lambda: self._addressed(self.doc.names())), p)

    def list_strings(self, p):
        def build():
            items = []
            for a, v, n in sorted(self.doc.strings(), key=lambda x: (x[0], x[1])):
                value, cut = _value(v)
                items.append({"address": _hex(a), "value": value, "value_truncated": cut, "byte_length": n})
            return items
        return _page(self._inventory("strings", build), p)

    def read_bytes(self, p):
        addr = _address(p, "address")
        n = _int(p, "length", READ_DEFAULT, 1, READ_MAX)
        self._ready()
        data = self.doc.read(addr, n)
        return {"address": _hex(addr), "requested_bytes": n, "returned_bytes": len(data),
                "bytes_hex": data.hex(), "complete": len(data) == n}

    def pseudo_code(self, p):
        addr = _address(p, "procedure")
        self._ready()
        text = self.doc.decompile(addr)
        if text is None:
            raise BridgeError("invalid_request", "no procedure starts at %s" % _hex(addr))
        return text

    # Annotations: Hopper's Python API reads and writes one address at a
    # time (names, comments, inline comments) and lists names only, so the
    # client keeps the addresses it commented.

    def _annotation_target(self, p):
        kind = p.get("kind")
        if kind not in ANNOTATION_KINDS:
            raise BridgeError("invalid_request", "kind must be one of %s" % ", ".join(ANNOTATION_KINDS))
        addr = _address(p, "address")
        if not self.doc.mapped(addr):
            raise BridgeError("invalid_request", "no segment maps %s" % _hex(addr))
        return kind, addr

    def get_annotation(self, p):
        kind, addr = self._annotation_target(p)
        return {"kind": kind, "address": _hex(addr), "text": self.doc.annotation(kind, addr) or None}

    def set_annotation(self, p):
        kind, addr = self._annotation_target(p)
        text = p.get("text")
        if not isinstance(text, str) or not text or len(text) > MAX_ANNOTATION or \
                any(ord(c) < 0x20 and c not in "\t" or ord(c) == 0x7f for c in text):
            raise BridgeError("invalid_request", "text must be 1 to %d characters without control characters" % MAX_ANNOTATION)
        self.doc.set_annotation(kind, addr, text)
        if kind == "name":  # a rename changes every inventory that shows names
            self.cache.clear()
        return {"kind": kind, "address": _hex(addr), "text": self.doc.annotation(kind, addr) or None}

    def remove_annotation(self, p):
        kind, addr = self._annotation_target(p)
        if not self.doc.annotation(kind, addr):
            return {"kind": kind, "address": _hex(addr), "removed": False}
        self.doc.set_annotation(kind, addr, "")
        if kind == "name":
            self.cache.clear()
        return {"kind": kind, "address": _hex(addr), "removed": not self.doc.annotation(kind, addr)}

    # --- framing ---------------------------------------------------------

    def handle(self, line, write):
        """Answers one request line; returns False when the bridge must
        end (an unauthenticated or malformed request, or a shutdown)."""
        try:
            req = json.loads(line)
        except ValueError:
            write({"id": 0, "error": error_body("authorization", "Bridge request is invalid")})
            return False
        rid = req.get("id") if isinstance(req, dict) else None
        valid_id = isinstance(rid, int) and not isinstance(rid, bool) and rid >= 0
        if (not isinstance(req, dict) or set(req.keys()) != {"id", "token", "method", "params"} or not valid_id
                or not isinstance(req.get("token"), str) or not isinstance(req.get("method"), str)
                or not isinstance(req.get("params"), dict)
                or not hmac.compare_digest(req["token"].encode("utf-8"), self.token.encode("utf-8"))):
            write({"id": rid if valid_id else 0, "error": error_body("authorization", "Bridge request is invalid")})
            return False
        method, params = req["method"], req["params"]
        write({"id": rid, "event": {"type": "progress", "phase": "hopper_bridge", "completed": 0, "total": 1,
                                    "message": "Hopper bridge started request"}})
        try:
            if method not in self.methods:
                raise BridgeError("capability_unavailable", "the Hopper bridge has no method %s" % method[:64])
            keys, fn = self.methods[method]
            _exact(params, keys)
            result = fn(params)
        except BridgeError as e:
            err = error_body(e.kind, e)
        except (ValueError, TypeError, KeyError) as e:
            err = error_body("invalid_request", "%s: %s" % (type(e).__name__, e))
        except Exception as e:  # the engine's own failure
            err = error_body("bridge_exception", "%s: %s" % (type(e).__name__, e))
        else:
            write({"id": rid, "event": {"type": "progress", "phase": "hopper_bridge", "completed": 1, "total": 1,
                                        "message": "Hopper bridge finished request", "terminal": True}})
            write({"id": rid, "result": result})
            return not self.done
        write({"id": rid, "event": {"type": "diagnostic", "error": err}})
        write({"id": rid, "error": err})
        return True


def serve(session, path):
    """Binds path (0600), accepts one client and answers it until EOF, a
    fatal request or a shutdown. The socket file is removed on exit."""
    try:
        os.unlink(path)
    except OSError:
        pass
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        srv.bind(path)
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    srv.listen(1)
    try:
        conn, _ = srv.accept()
        srv.close()
        rfile = conn.makefile("rb")

        def write(obj):
            conn.sendall(json.dumps(obj, separators=(",", ":")).encode("utf-8") + b"\n")

        while True:
            line = rfile.readline(MAX_LINE + 1)
            if not line:
                return
            if len(line) > MAX_LINE:
                write({"id": 0, "error": error_body("invalid_request", "request line over 10 MiB")})
                return
            line = line.rstrip(b"\r\n").replace(b"\r", b"")
            if not session.handle(line.decode("utf-8", "replace"), write):
                return
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass


class HopperDoc(object):
    """The Hopper-facing layer over Hopper's Python API (Document, Segment,
    Procedure). Every call this build lacks is capability_unavailable."""

    def __init__(self, document):
        self.d = document

    def _api(self, obj, name):
        fn = getattr(obj, name, None)
        if fn is None:
            raise BridgeError("capability_unavailable", "this Hopper build has no %s" % name)
        return fn

    def analysing(self):
        fn = getattr(self.d, "isBackgroundProcessRunning", None)
        return bool(fn()) if fn is not None else False

    def name(self):
        return self._api(self.d, "getDocumentName")()

    def _segments(self):
        n = self._api(self.d, "getSegmentCount")()
        return [self._api(self.d, "getSegment")(i) for i in range(n)]

    def segments(self):
        out = []
        for s in self._segments():
            start, length = s.getStartingAddress(), s.getLength()
            seg = {"name": s.getName(), "start": start, "length": length}
            off = getattr(s, "getFileOffset", None)
            if off is not None:
                o = off()
                if o is not None and o >= 0:
                    seg["file_offset"] = o
                    seg["file_bytes"] = length
            out.append(seg)
        return out

    def procedures(self):
        out = []
        for s in self._segments():
            for i in range(self._api(s, "getProcedureCount")()):
                proc = s.getProcedureAtIndex(i)
                entry = proc.getEntryPoint()
                end = None
                count = getattr(proc, "getBasicBlockCount", None)
                if count is not None:
                    for j in range(count()):
                        e = proc.getBasicBlock(j).getEndingAddress()
                        end = e if end is None else max(end, e)
                out.append((entry, self.d.getNameAtAddress(entry) or "", end))
        return out

    def instructions(self, start, end):
        seg = self._api(self.d, "getSegmentAtAddress")(start)
        if seg is None:
            return
        a = start
        while a < end:
            ins = self._api(seg, "getInstructionAtAddress")(a)
            if ins is None:
                return
            n = ins.getInstructionLength()
            args = [ins.getFormattedArgument(i) for i in range(ins.getArgumentCount())]
            yield a, n, ins.getInstructionString(), ", ".join(args)
            if n < 1:
                return
            a += n

    def names(self):
        out = []
        for s in self._segments():
            for a in self._api(s, "getNamedAddresses")():
                n = self.d.getNameAtAddress(a)
                if n:
                    out.append((a, n))
        return out

    def strings(self):
        out = []
        for s in self._segments():
            count = self._api(s, "getStringCount")()
            for i in range(count):
                a = s.getStringAddressAtIndex(i)
                v = s.getStringAtIndex(i)
                out.append((a, v, len(v.encode("utf-8"))))
        return out

    def read(self, addr, n):
        rb = self._api(self.d, "readByte")
        seg = self._api(self.d, "getSegmentAtAddress")(addr)
        if seg is None:
            raise BridgeError("invalid_request", "no segment maps %s" % _hex(addr))
        end = min(addr + n, seg.getStartingAddress() + seg.getLength())
        return bytes(rb(a) & 0xFF for a in range(addr, end))

    def mapped(self, addr):
        return self._api(self.d, "getSegmentAtAddress")(addr) is not None

    def annotation(self, kind, addr):
        """The name or comment at addr, or None."""
        if kind == "name":
            return self._api(self.d, "getNameAtAddress")(addr) or None
        seg = self._api(self.d, "getSegmentAtAddress")(addr)
        getter = "getCommentAtAddress" if kind == "comment" else "getInlineCommentAtAddress"
        return self._api(seg, getter)(addr) or None

    def set_annotation(self, kind, addr, text):
        """Sets the name or comment at addr; empty text removes it."""
        if kind == "name":
            self._api(self.d, "setNameAtAddress")(addr, text)
            return
        seg = self._api(self.d, "getSegmentAtAddress")(addr)
        setter = "setCommentAtAddress" if kind == "comment" else "setInlineCommentAtAddress"
        self._api(seg, setter)(addr, text)

    def decompile(self, addr):
        seg = self._api(self.d, "getSegmentAtAddress")(addr)
        if seg is None:
            return None
        proc = seg.getProcedureAtAddress(addr)
        if proc is None or proc.getEntryPoint() != addr:
            return None
        text = self._api(proc, "decompile")()
        if not text:
            raise BridgeError("bridge_exception", "Hopper returned no pseudo-code for %s" % _hex(addr))
        return text


def main(document_class):
    """Serves the session the bootstrap describes; document_class is
    Hopper's Document, which the bootstrap passes in from its globals."""
    path = os.environ["REA_SOCKET"]
    token = os.environ["REA_TOKEN"]
    run_id = os.environ["REA_RUN_ID"]
    serve(Session(HopperDoc(document_class.getCurrentDocument()), token, run_id), path)
