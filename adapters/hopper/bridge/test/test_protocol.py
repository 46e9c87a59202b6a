# Tests of the Hopper bridge's protocol layer with a stub document (no
# Hopper): python3 test_protocol.py <path of hopper_bridge.py>
import json
import os
import socket
import sys
import tempfile
import threading
import time
import unittest

ns = {"__name__": "rea_hopper_bridge"}
with open(sys.argv.pop(1)) as f:
    exec(compile(f.read(), "hopper_bridge.py", "exec"), ns)
Session, serve = ns["Session"], ns["serve"]
TOKEN = "ab" * 32


class Stub(object):
    busy = False

    def analysing(self):
        return self.busy

    def name(self):
        return "target"

    def segments(self):
        return [{"name": "rodata", "start": 0x2000, "length": 0x10, "file_offset": 0x200, "file_bytes": 0x10},
                {"name": "text", "start": 0x1000, "length": 0x20, "file_offset": 0x100, "file_bytes": 0x20}]

    def procedures(self):
        return [(0x1010, "b", 0x1018), (0x1000, "a", 0x1006), (0x1018, "x" * 2000, None)]

    def instructions(self, start, end):
        code = {0x1000: [(0x1000, 5, "call", "0x1010"), (0x1005, 1, "ret", "")],
                0x1010: [(0x1010, 2, "je", "0x1014"), (0x1012, 2, "jmp", "qword [rax]"), (0x1014, 4, "hlt", "")]}
        return iter(code.get(start, []))

    def __init__(self):
        self.notes = {"name": {0x1000: "a"}, "comment": {}, "inline_comment": {}}

    def names(self):
        return sorted(self.notes["name"].items())

    def mapped(self, a):
        return any(s["start"] <= a < s["start"] + s["length"] for s in self.segments())

    def annotation(self, kind, a):
        return self.notes[kind].get(a)

    def set_annotation(self, kind, a, text):
        if text:
            self.notes[kind][a] = text
        else:
            self.notes[kind].pop(a, None)

    def strings(self):
        return [(0x2000, "hi", 2)]

    def read(self, a, n):
        return bytes(range(n % 256))[:n]

    def decompile(self, a):
        return "int a(void) { return 0; }" if a == 0x1000 else None


class Client(object):
    def __init__(self, doc):
        self.dir = tempfile.mkdtemp()
        self.path = os.path.join(self.dir, "s")
        self.session = Session(doc, TOKEN, "run-1")
        # A daemon thread: a failed test must not leave the process waiting
        # on a bridge blocked in accept().
        self.t = threading.Thread(target=serve, args=(self.session, self.path), daemon=True)
        self.t.start()
        # The socket file exists from bind(); connections are refused until
        # listen(): retry, as rea's client does.
        for _ in range(500):
            self.s = socket.socket(socket.AF_UNIX)
            try:
                self.s.connect(self.path)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                self.s.close()
                time.sleep(0.01)
        else:
            raise AssertionError("the bridge never accepted a connection")
        self.f = self.s.makefile("rb")
        self.id = 0

    def raw(self, line):
        self.s.sendall(line + b"\n")

    def send(self, method, params, token=TOKEN):
        self.id += 1
        self.raw(json.dumps({"id": self.id, "token": token, "method": method, "params": params}).encode())
        return self.id

    def lines(self, n):
        return [json.loads(self.f.readline()) for _ in range(n)]

    def call(self, method, params):
        rid = self.send(method, params)
        got = self.lines(3)
        for g in got:
            assert g["id"] == rid, got
        return got

    def close(self):
        self.f.close()
        self.s.close()
        self.t.join(5)
        assert not self.t.is_alive()
        assert not os.path.exists(self.path), "socket left behind"
        os.rmdir(self.dir)


class ProtocolTest(unittest.TestCase):
    def test_health_and_events(self):
        c = Client(Stub())
        started, done, res = c.call("health", {})
        self.assertEqual(started["event"]["completed"], 0)
        self.assertEqual(started["event"]["phase"], "hopper_bridge")
        self.assertEqual(done["event"]["completed"], 1)
        self.assertTrue(done["event"]["terminal"])
        self.assertEqual(res["result"], {"name": "REA Hopper bridge", "version": "1.0.0", "run_id": "run-1"})
        self.assertEqual(oct(os.stat(c.path).st_mode & 0o777), oct(0o600))
        c.close()

    def test_bad_token_ends_the_bridge(self):
        c = Client(Stub())
        c.send("health", {}, token="cd" * 32)
        (e,) = c.lines(1)
        self.assertEqual(e["error"]["type"], "authorization")
        self.assertEqual(e["error"]["code"], -32000)
        self.assertEqual(c.f.readline(), b"")  # the bridge hung up
        c.close()

    def test_malformed_request_ends_the_bridge(self):
        for line, rid in [(b"{not json", 0), (b'{"id":7,"token":"x","method":"health"}', 7),
                          (b'{"id":-1,"token":"%s","method":"health","params":{}}' % TOKEN.encode(), 0),
                          (b'{"id":true,"token":"%s","method":"health","params":{}}' % TOKEN.encode(), 0),
                          (b'{"id":1,"token":"%s","method":"health","params":{},"x":1}' % TOKEN.encode(), 1)]:
            c = Client(Stub())
            c.raw(line)
            (e,) = c.lines(1)
            self.assertEqual(e["id"], rid)
            self.assertEqual(e["error"]["type"], "authorization")
            c.close()

    def test_errors_are_typed_and_the_session_continues(self):
        c = Client(Stub())
        _, diag, err = c.call("no_such_method", {})
        self.assertEqual(diag["event"]["type"], "diagnostic")
        self.assertEqual(err["error"]["type"], "capability_unavailable")
        _, _, err = c.call("list_procedures", {"offset": 0})
        self.assertEqual(err["error"]["type"], "invalid_request")  # exact parameter sets
        _, _, err = c.call("list_procedures", {"offset": 0, "limit": 501})
        self.assertEqual(err["error"]["type"], "invalid_request")
        _, _, err = c.call("read_bytes", {"address": "zz", "length": 4})
        self.assertEqual(err["error"]["type"], "invalid_request")
        _, _, err = c.call("procedure_pseudo_code", {"procedure": "0x1001"})
        self.assertEqual(err["error"]["type"], "invalid_request")
        _, _, ok = c.call("health", {})
        self.assertIn("result", ok)
        c.close()

    def test_inventories_pages_and_bytes(self):
        c = Client(Stub())
        _, _, segs = c.call("list_segments", {})
        self.assertEqual([s["name"] for s in segs["result"]], ["text", "rodata"])
        self.assertEqual(segs["result"][0], {"name": "text", "start": "0x1000", "end": "0x1020", "file_offset": 256, "file_bytes": 32})
        _, _, p = c.call("list_procedures", {"offset": 0, "limit": 2})
        r = p["result"]
        self.assertEqual([i["address"] for i in r["items"]], ["0x1000", "0x1010"])
        self.assertEqual((r["total"], r["next_offset"], r["has_more"]), (3, 2, True))
        _, _, p = c.call("list_procedures", {"offset": 2, "limit": 2})
        r = p["result"]
        self.assertEqual((len(r["items"][0]["value"]), r["items"][0]["value_truncated"], r["next_offset"], r["has_more"]), (1024, True, None, False))
        _, _, b = c.call("read_bytes", {"address": "0x1000", "length": 4})
        self.assertEqual(b["result"], {"address": "0x1000", "requested_bytes": 4, "returned_bytes": 4, "bytes_hex": "00010203", "complete": True})
        _, _, d = c.call("procedure_pseudo_code", {"procedure": "0x1000"})
        self.assertTrue(d["result"].startswith("int a"))
        c.close()

    def test_procedure_body(self):
        c = Client(Stub())
        _, _, r = c.call("procedure_body", {"procedure": "0x1000", "max_instructions": 10})
        self.assertEqual(r["result"], {"start": "0x1000", "end": "0x1006", "truncated": False, "instructions": [
            {"address": "0x1000", "length": 5, "mnemonic": "call", "operands": "0x1010", "flow": "call", "target": "0x1010"},
            {"address": "0x1005", "length": 1, "mnemonic": "ret", "operands": "", "flow": "return", "target": None}]})
        _, _, r = c.call("procedure_body", {"procedure": "0x1010", "max_instructions": 2})
        ins = r["result"]["instructions"]
        self.assertEqual([(i["flow"], i["target"]) for i in ins], [("branch", "0x1014"), ("jump", None)])
        self.assertTrue(r["result"]["truncated"])
        _, _, err = c.call("procedure_body", {"procedure": "0x1001", "max_instructions": 2})
        self.assertEqual(err["error"]["type"], "invalid_request")
        _, _, p = c.call("list_procedures", {"offset": 0, "limit": 3})
        self.assertEqual([i["end"] for i in p["result"]["items"]], ["0x1006", "0x1018", None])
        c.close()

    def test_classify(self):
        cl = ns["classify"]
        self.assertEqual(cl("call", "0x401040"), ("call", 0x401040))
        self.assertEqual(cl("call", "rax"), ("call", None))
        self.assertEqual(cl("jne", "0x10"), ("branch", 0x10))
        self.assertEqual(cl("b.eq", "0x10"), ("branch", 0x10))
        self.assertEqual(cl("cbz", "x0, 0x20"), ("branch", 0x20))
        self.assertEqual(cl("bl", "0x30"), ("call", 0x30))
        self.assertEqual(cl("ret", ""), ("return", None))
        self.assertEqual(cl("int3", ""), ("stop", None))
        self.assertEqual(cl("mov", "rbp, rsp"), ("", None))

    def test_background_analysis_refuses_inventories(self):
        s = Stub()
        s.busy = True
        c = Client(s)
        _, _, err = c.call("list_procedures", {"offset": 0, "limit": 10})
        self.assertEqual(err["error"]["type"], "capability_unavailable")
        _, _, ok = c.call("list_documents", {})
        self.assertEqual(ok["result"], ["target"])
        c.close()

    def test_annotations(self):
        c = Client(Stub())

        def last(method, params):  # the reply after the two events
            return c.call(method, params)[-1]
        try:
            self.assertEqual(last("list_names", {"offset": 0, "limit": 10})["result"]["total"], 1)
            for kind in ["name", "comment", "inline_comment"]:
                p = {"kind": kind, "address": "0x1004"}
                self.assertIsNone(last("get_annotation", p)["result"]["text"])
                r = last("set_annotation", dict(p, text="rea " + kind))["result"]
                self.assertEqual(r, {"kind": kind, "address": "0x1004", "text": "rea " + kind})
                self.assertEqual(last("get_annotation", p)["result"]["text"], "rea " + kind)
                if kind == "name":  # the rename reached the cached inventory
                    names = last("list_names", {"offset": 0, "limit": 10})["result"]["items"]
                    self.assertEqual([n["value"] for n in names], ["a", "rea name"])
                self.assertTrue(last("remove_annotation", p)["result"]["removed"])
                self.assertFalse(last("remove_annotation", p)["result"]["removed"])
            # Unmapped addresses, bad kinds, empty or control-character text
            # and missing keys are invalid requests; nothing changes.
            for method, p in [("set_annotation", {"kind": "comment", "address": "0x9000", "text": "x"}),
                              ("set_annotation", {"kind": "bookmark", "address": "0x1004", "text": "x"}),
                              ("set_annotation", {"kind": "comment", "address": "0x1004", "text": ""}),
                              ("set_annotation", {"kind": "comment", "address": "0x1004", "text": "a\x00b"}),
                              ("set_annotation", {"kind": "comment", "address": "0x1004", "text": "x" * 4097}),
                              ("get_annotation", {"kind": "comment", "address": "0x1004", "text": "x"})]:
                self.assertEqual(last(method, p)["error"]["type"], "invalid_request", (method, p))
            self.assertIsNone(last("get_annotation", {"kind": "comment", "address": "0x1004"})["result"]["text"])
        finally:
            c.close()

    def test_shutdown_ends_the_bridge(self):
        c = Client(Stub())
        _, _, r = c.call("shutdown", {})
        self.assertTrue(r["result"]["shutdown"])
        self.assertEqual(c.f.readline(), b"")
        c.close()


if __name__ == "__main__":
    unittest.main(verbosity=1)
