# Writes fixture.jsonl, the replay transcript the fake launcher answers from:
# python3 make_fixture.py ../bridge/hopper_bridge.py > fixture.jsonl
#
# The answers come from the bridge's own protocol layer (Session) over a stub
# document describing the synthetic target the Go tests build (hopper_test.go
# newEnv): .text at 0x401000 (file 0x1000, 0x100 bytes), .rodata at 0x402000
# (file 0x1100, 0x40 bytes), .bss at 0x403000 (no file bytes). No Hopper ran.
import json
import sys

ns = {"__name__": "rea_hopper_bridge"}
with open(sys.argv[1]) as f:
    exec(compile(f.read(), "hopper_bridge.py", "exec"), ns)


class Target(object):
    def analysing(self):
        return False

    def name(self):
        return "target.elf"

    def segments(self):
        return [{"name": ".text", "start": 0x401000, "length": 0x100, "file_offset": 0x1000, "file_bytes": 0x100},
                {"name": ".rodata", "start": 0x402000, "length": 0x40, "file_offset": 0x1100, "file_bytes": 0x40},
                {"name": ".bss", "start": 0x403000, "length": 0x20}]

    def procedures(self):
        return [(0x401000, "main", 0x40100d), (0x401040, "helper", 0x40104d), (0x401080, "j_puts", 0x401086)]

    def instructions(self, start, end):
        # The code hopper_test.go writes at these addresses.
        return iter({
            0x401000: [(0x401000, 1, "push", "rbp"), (0x401001, 3, "mov", "rbp, rsp"), (0x401004, 5, "call", "0x401040"),
                       (0x401009, 2, "xor", "eax, eax"), (0x40100b, 1, "pop", "rbp"), (0x40100c, 1, "ret", "")],
            0x401040: [(0x401040, 7, "lea", "rdi, qword [0x402000]"), (0x401047, 5, "call", "0x401080"), (0x40104c, 1, "ret", "")],
            0x401080: [(0x401080, 6, "jmp", "qword [0x404000]")],
        }[start])

    def names(self):
        return [(0x401000, "main"), (0x401040, "helper"), (0x401080, "j_puts"), (0x402000, "aHelloHopper"),
                (0x403000, "counter")]

    def strings(self):
        return [(0x402000, "hello, hopper", 13)]

    def read(self, a, n):
        raise AssertionError("read_bytes is answered by the fake from the target's bytes")

    def decompile(self, a):
        return {0x401000: "int main() {\n    helper();\n    return 0;\n}\n",
                0x401040: "void helper() {\n    j_puts(\"hello, hopper\");\n}\n",
                0x401080: "int j_puts(char * arg0) {\n    return puts(arg0);\n}\n"}.get(a)


session = ns["Session"](Target(), "[REDACTED]", "[RUN]")
out = sys.stdout
out.write(json.dumps({"type": "header", "version": 1, "engine": "hopper", "engine_version": "fake: the bridge protocol layer over a stub document, no Hopper ran",
                      "recorded_at": "2026-12-03T14:00:00Z", "framing": "lines"}) + "\n")
at = [0]


def entry(kind, text):
    out.write(json.dumps({"type": kind, "at_us": at[0], "text": text}) + "\n")
    at[0] += 1000


def call(method, params):
    req = {"id": 0, "token": "[REDACTED]", "method": method, "params": params}
    entry("request", json.dumps(req, separators=(",", ":")) + "\n")
    session.handle(json.dumps(req), lambda obj: entry("response", json.dumps(obj, separators=(",", ":")) + "\n"))


call("list_documents", {})
call("list_segments", {})
for m in ["list_procedures", "list_names", "list_strings"]:
    call(m, {"offset": 0, "limit": 500})
for a in ["0x401000", "0x401040", "0x401080"]:
    call("procedure_pseudo_code", {"procedure": a})
    call("procedure_body", {"procedure": a, "max_instructions": 100000})
