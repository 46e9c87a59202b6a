#!/usr/bin/python3
"""Run the Hopper 6.4.2 Linux demo on a private X display (PROVIDERS.md §2.2).

rea starts this helper as the owned launcher of the demo:

  hopper-demo-x11.py --probe --strategy direct
  hopper-demo-x11.py --probe --strategy user-mount-namespace --mount-private-x11
  hopper-demo-x11.py --strategy S [--mount-private-x11] --hopper L --socket SOCK -- L ARGV...

It starts `Xvfb :<100..999> -screen 0 1280x1024x24 -nolisten tcp` with a
fresh MIT-MAGIC-COOKIE-1, runs the launcher on that display, and within 10 s
must see either the bridge's socket or the demo dialog at (189,370,901,284),
which it dismisses with an XTest click at (305,632) ("Try the Demo"). It then
stays in the foreground while Hopper runs, and on SIGTERM, SIGINT or SIGHUP
stops Hopper and Xvfb (its own children) and removes what it created.

It writes exactly one stderr line, REA_X11_DIAGNOSTIC_V1=<json>, when the
probe ends, when the launch is ready, or when it fails, and exits with:

  70 private_display_unavailable   71 x11_authorization_failed
  72 unsupported_hopper_build      73 invalid_launch_command
  74 process_ownership_mismatch    75 hopper_exited_during_startup
  76 unsupported_demo_dialog       77 unexpected_display_geometry
  78 x11_input_failed              79 runtime_dependency_unavailable
  80 x11_socket_directory_unusable

After a ready launch it exits with Hopper's own exit status.

It speaks the X11 protocol itself over the display's Unix socket, so it needs
only the Python standard library and Xvfb.
"""

import ctypes
import ctypes.util
import hashlib
import json
import os
import random
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import time

DEMO_SHA256 = "0294ced141cc373468ee22d8343e7dac41980cb05a937994ca81c9f09afe7ded"

DIALOG = (189, 370, 901, 284)  # x, y, width, height of the demo dialog
CLICK = (305, 632)  # "Try the Demo", in root coordinates
SCREEN = (1280, 1024, 24)
STARTUP_SECONDS = 10.0
X11_DIR = "/tmp/.X11-unix"

FAILURES = {
    70: "private_display_unavailable",
    71: "x11_authorization_failed",
    72: "unsupported_hopper_build",
    73: "invalid_launch_command",
    74: "process_ownership_mismatch",
    75: "hopper_exited_during_startup",
    76: "unsupported_demo_dialog",
    77: "unexpected_display_geometry",
    78: "x11_input_failed",
    79: "runtime_dependency_unavailable",
    80: "x11_socket_directory_unusable",
}


class Failure(Exception):
    """A failure with its exit code and a one-line detail."""

    def __init__(self, code, detail):
        super().__init__(detail)
        self.code = code
        self.detail = detail


# --- X11 protocol (only what this helper needs) ---------------------------


def write_xauthority(path, display_number, cookie):
    """Write one FamilyWild MIT-MAGIC-COOKIE-1 entry for the display."""

    def field(b):
        return struct.pack(">H", len(b)) + b

    entry = struct.pack(">H", 0xFFFF) + field(b"") + field(str(display_number).encode())
    entry += field(b"MIT-MAGIC-COOKIE-1") + field(cookie)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(entry)


def read_xauthority(path, display_number):
    """The cookie for the display from an Xauthority file, or None."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    pos = 0

    def take():
        nonlocal pos
        (n,) = struct.unpack_from(">H", data, pos)
        v = data[pos + 2 : pos + 2 + n]
        pos += 2 + n
        return v

    try:
        while pos < len(data):
            (family,) = struct.unpack_from(">H", data, pos)
            pos += 2
            _addr, number, name, cookie = take(), take(), take(), take()
            if name == b"MIT-MAGIC-COOKIE-1" and number == str(display_number).encode() and family in (0xFFFF, 256):
                return cookie
    except struct.error:
        return None
    return None


def pad(b):
    return b + b"\0" * (-len(b) % 4)


class X11:
    """A little-endian X11 client connection over a Unix socket."""

    def __init__(self, display_number, cookie, timeout=5.0):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect("%s/X%d" % (X11_DIR, display_number))
        name = b"MIT-MAGIC-COOKIE-1" if cookie else b""
        cookie = cookie or b""
        self.sock.sendall(struct.pack("<BxHHHHxx", 0x6C, 11, 0, len(name), len(cookie)) + pad(name) + pad(cookie))
        head = self._read(8)
        status, extra = head[0], struct.unpack_from("<H", head, 6)[0] * 4
        body = self._read(extra)
        if status != 1:
            reason = body[: head[1]].decode("latin-1", "replace") if status == 0 else "authentication required"
            raise PermissionError(reason or "connection refused")
        self.id_base, self.id_mask = struct.unpack_from("<II", body, 4)
        vendor_len = struct.unpack_from("<H", body, 16)[0]
        formats = body[21]
        at = 32 + len(pad(b"\0" * vendor_len)) + 8 * formats
        self.root = struct.unpack_from("<I", body, at)[0]
        self.width, self.height = struct.unpack_from("<HH", body, at + 20)
        self.depth = body[at + 38]
        self.next_id = 1
        self.events = []

    def close(self):
        self.sock.close()

    def _read(self, n):
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise ConnectionError("the X server closed the connection")
            out += chunk
        return out

    def send(self, data):
        self.sock.sendall(data)

    def reply(self):
        """The next reply, keeping events aside; an X error raises."""
        while True:
            head = self._read(32)
            if head[0] == 1:
                return head + self._read(struct.unpack_from("<I", head, 4)[0] * 4)
            if head[0] == 0:
                raise OSError("X error %d (request %d)" % (head[1], head[10]))
            self.events.append(head)

    def event(self):
        if self.events:
            return self.events.pop(0)
        head = self._read(32)
        if head[0] == 0:
            raise OSError("X error %d (request %d)" % (head[1], head[10]))
        return head

    def new_id(self):
        i = self.id_base | (self.next_id & self.id_mask)
        self.next_id += 1
        return i

    def query_extension(self, name):
        """The major opcode of an extension, or None."""
        n = name.encode()
        self.send(struct.pack("<BxHHxx", 98, 2 + len(pad(n)) // 4, len(n)) + pad(n))
        r = self.reply()
        return r[9] if r[8] else None

    def children(self, window):
        self.send(struct.pack("<BxHI", 15, 2, window))
        r = self.reply()
        n = struct.unpack_from("<H", r, 16)[0]
        return list(struct.unpack_from("<%dI" % n, r, 32))

    def viewable(self, window):
        self.send(struct.pack("<BxHI", 3, 2, window))
        return self.reply()[26] == 2

    def geometry(self, window):
        self.send(struct.pack("<BxHI", 14, 2, window))
        r = self.reply()
        return struct.unpack_from("<hhHH", r, 12)

    def sync(self):
        self.send(struct.pack("<BxH", 43, 1))  # GetInputFocus: a round trip
        self.reply()

    def fake_input(self, opcode, kind, detail, x=0, y=0):
        self.send(struct.pack("<BBHBBxxIIxxxxxxxxhhxxxxxxxB", opcode, 2, 9, kind, detail, 0, self.root, x, y, 0))

    def top_level_windows(self):
        """(window, x, y, width, height) of the root's viewable children."""
        out = []
        for w in self.children(self.root):
            try:
                if self.viewable(w):
                    out.append((w,) + tuple(self.geometry(w)))
            except OSError:
                pass  # the window went away meanwhile
        return out

    def create_window(self, x, y, width, height, event_mask):
        """A mapped override-redirect window (used by test programs)."""
        wid = self.new_id()
        values = struct.pack("<II", 1, event_mask)  # override-redirect, event-mask
        self.send(struct.pack("<BBHIIhhHHHHII", 1, 0, 8 + 2, wid, self.root, x, y, width, height, 0, 1, 0, 0x200 | 0x800) + values)
        self.send(struct.pack("<BxHI", 8, 2, wid))  # MapWindow
        self.sync()
        return wid


# --- the helper ---------------------------------------------------------


def diagnostic(record):
    sys.stderr.write("REA_X11_DIAGNOSTIC_V1=" + json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n")
    sys.stderr.flush()


def parse(argv):
    """The helper's options; a malformed command raises Failure(73)."""
    opts = {"probe": False, "strategy": None, "mount_private_x11": False, "hopper": None, "socket": None, "command": None}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            opts["command"] = argv[i + 1 :]
            break
        if a == "--probe":
            opts["probe"] = True
        elif a == "--mount-private-x11":
            opts["mount_private_x11"] = True
        elif a in ("--strategy", "--hopper", "--socket"):
            if i + 1 >= len(argv) or opts[a[2:]] is not None:
                raise Failure(73, "%s needs one value" % a)
            opts[a[2:]] = argv[i + 1]
            i += 1
        else:
            raise Failure(73, "unknown argument %r" % a)
        i += 1
    if opts["strategy"] not in ("direct", "user-mount-namespace"):
        raise Failure(73, "--strategy must be direct or user-mount-namespace")
    if opts["mount_private_x11"] != (opts["strategy"] == "user-mount-namespace"):
        raise Failure(73, "--mount-private-x11 goes with, and only with, --strategy user-mount-namespace")
    if opts["probe"]:
        if opts["hopper"] or opts["socket"] or opts["command"] is not None:
            raise Failure(73, "--probe takes no --hopper, --socket or command")
        return opts
    if not opts["hopper"] or not opts["socket"] or not opts["command"]:
        raise Failure(73, "a launch needs --hopper, --socket and -- followed by the launcher and its arguments")
    if not os.path.isabs(opts["hopper"]) or not os.path.isabs(opts["socket"]):
        raise Failure(73, "--hopper and --socket must be absolute paths")
    if os.path.realpath(opts["command"][0]) != os.path.realpath(opts["hopper"]):
        raise Failure(73, "the command does not run the launcher named by --hopper")
    if not os.path.isdir(os.path.dirname(opts["socket"])) or os.path.lexists(opts["socket"]):
        raise Failure(73, "the socket's directory must exist and the socket must not")
    return opts


def check_build(path):
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    except OSError as e:
        raise Failure(72, "cannot read the launcher: %s" % e.strerror)
    if h.hexdigest() != DEMO_SHA256:
        raise Failure(72, "the launcher is not the Hopper 6.4.2 demo (SHA-256 %s)" % h.hexdigest())


def mount_private_x11():
    """A private tmpfs on the X11 socket directory (inside unshare --mount)."""
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    try:
        os.makedirs(X11_DIR, exist_ok=True)
    except OSError as e:
        raise Failure(80, "cannot create %s: %s" % (X11_DIR, e.strerror))
    if libc.mount(b"tmpfs", X11_DIR.encode(), b"tmpfs", 0, b"mode=1777") != 0:
        raise Failure(80, "cannot mount a private %s: %s" % (X11_DIR, os.strerror(ctypes.get_errno())))


def check_socket_directory():
    try:
        st = os.lstat(X11_DIR)
    except FileNotFoundError:
        if os.access(os.path.dirname(X11_DIR), os.W_OK | os.X_OK):
            return  # Xvfb creates it
        raise Failure(80, "%s is absent and cannot be created" % X11_DIR)
    except OSError as e:
        raise Failure(80, "%s: %s" % (X11_DIR, e.strerror))
    if not stat.S_ISDIR(st.st_mode) or not os.access(X11_DIR, os.W_OK | os.X_OK):
        raise Failure(80, "%s is not a directory this user can create sockets in" % X11_DIR)


class Display:
    """A private Xvfb display this helper started."""

    def __init__(self, workdir):
        self.proc = None
        self.keeper = None
        self.number = None
        self.cookie = os.urandom(16)
        self.workdir = workdir
        self.xauthority = None
        self.log = os.path.join(workdir, "xvfb.log")

    def start(self):
        numbers = list(range(100, 1000))
        random.shuffle(numbers)
        tried = 0
        for n in numbers:
            if os.path.lexists("/tmp/.X%d-lock" % n) or os.path.lexists("%s/X%d" % (X11_DIR, n)):
                continue
            tried += 1
            if tried > 5:
                break
            self.xauthority = os.path.join(self.workdir, "Xauthority-%d" % n)
            write_xauthority(self.xauthority, n, self.cookie)
            argv = ["Xvfb", ":%d" % n, "-screen", "0", "%dx%dx%d" % SCREEN, "-nolisten", "tcp", "-auth", self.xauthority]
            with open(self.log, "ab") as log:
                self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
            self.number = n
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and self.proc.poll() is None:
                try:
                    # Held open until stop: Xvfb resets when its last
                    # client leaves, resetting connections made meanwhile.
                    self.keeper = self.connect()
                    return
                except PermissionError as e:
                    raise Failure(71, "the display refused rea's cookie: %s" % e)
                except OSError:
                    time.sleep(0.05)
            self.stop()
        raise Failure(70, "no private Xvfb display could be started (see %s)" % self.log)

    def connect(self):
        return X11(self.number, self.cookie)

    def env(self):
        return {"DISPLAY": ":%d" % self.number, "XAUTHORITY": self.xauthority}

    def stop(self):
        if self.keeper is not None:
            self.keeper.close()
            self.keeper = None
        if self.proc is not None:
            stop_child(self.proc)
            self.proc = None


def stop_child(proc):
    """Stop a child this helper started: SIGTERM, then SIGKILL after 5 s."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def check_display(x):
    if (x.width, x.height, x.depth) != SCREEN:
        raise Failure(77, "the display is %dx%dx%d, not %dx%dx%d" % ((x.width, x.height, x.depth) + SCREEN))
    opcode = x.query_extension("XTEST")
    if opcode is None:
        raise Failure(78, "the display has no XTEST extension")
    return opcode


def is_socket(path):
    try:
        return stat.S_ISSOCK(os.lstat(path).st_mode)
    except OSError:
        return False


def descendants(pid):
    """pid and every process below it, from /proc."""
    parents = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    s = f.read()
                parents[int(d)] = int(s[s.rindex(")") + 2 :].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    out, todo = {pid}, [pid]
    while todo:
        p = todo.pop()
        for c, pp in parents.items():
            if pp == p and c not in out:
                out.add(c)
                todo.append(c)
    return out


def socket_holders(path):
    """(inode found, pids holding the listening socket bound at path)."""
    inodes = set()
    try:
        with open("/proc/net/unix") as f:
            for line in f.readlines()[1:]:
                cols = line.split()
                if len(cols) >= 8 and cols[7] == path:
                    inodes.add(cols[6])
    except OSError:
        return False, set()
    want = {"socket:[%s]" % i for i in inodes}
    pids = set()
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            for fd in os.listdir("/proc/%s/fd" % d):
                if os.readlink("/proc/%s/fd/%s" % (d, fd)) in want:
                    pids.add(int(d))
                    break
        except OSError:
            pass
    return bool(inodes), pids


def await_startup(display, xtest, hopper, sock, record):
    """Wait for the socket or the dialog; click the dialog away."""
    deadline = time.monotonic() + STARTUP_SECONDS
    x = display.connect()
    try:
        while True:
            if hopper.poll() is not None:
                raise Failure(75, "Hopper exited with status %d during startup" % hopper.returncode)
            if is_socket(sock):
                record["socket_seen"] = True
                return
            windows = x.top_level_windows()
            dialog = [w for w in windows if tuple(w[1:]) == DIALOG]
            if dialog:
                record["dialog_seen"] = True
                x.fake_input(xtest, 6, 0, *CLICK)  # MotionNotify, absolute
                x.fake_input(xtest, 4, 1)  # ButtonPress, button 1
                x.fake_input(xtest, 5, 1)  # ButtonRelease
                x.sync()
                record["clicked"] = True
                gone = time.monotonic() + 5
                while time.monotonic() < gone:
                    if hopper.poll() is not None:
                        raise Failure(75, "Hopper exited with status %d after the dialog" % hopper.returncode)
                    if is_socket(sock) or not any(w[0] == dialog[0][0] for w in x.top_level_windows()):
                        return
                    time.sleep(0.05)
                raise Failure(78, "the demo dialog stayed after the click")
            if time.monotonic() >= deadline:
                record["windows"] = [list(w[1:]) for w in windows[:8]]
                if windows:
                    raise Failure(76, "no demo dialog at %s within %ds; top-level windows: %s" % (list(DIALOG), STARTUP_SECONDS, record["windows"]))
                raise Failure(76, "neither the bridge socket nor the demo dialog within %ds" % STARTUP_SECONDS)
            time.sleep(0.05)
    except (OSError, struct.error) as e:
        raise Failure(78, "X11 input failed: %s" % e)
    finally:
        x.close()


def check_ownership(hopper, sock, record):
    """The listening socket belongs to Hopper's process tree, when visible."""
    found, holders = socket_holders(sock)
    record["ownership_checked"] = found
    if found and holders and not holders & descendants(hopper.pid):
        raise Failure(74, "the socket is held by processes %s, not by Hopper (%d) or its children" % (sorted(holders), hopper.pid))


def main(argv):
    record = {"version": 1, "mode": "launch", "strategy": None, "display": None, "failure_code": None, "exit_code": 0}
    display = None
    workdir = None
    hopper = None
    stopping = []

    def on_signal(signum, _frame):
        stopping.append(signum)
        raise KeyboardInterrupt

    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, on_signal)
    try:
        try:
            opts = parse(argv)
            record["mode"] = "probe" if opts["probe"] else "launch"
            record["strategy"] = opts["strategy"]
            if not opts["probe"]:
                check_build(opts["hopper"])
            if shutil.which("Xvfb") is None:
                raise Failure(79, "Xvfb is not on PATH (Debian: apt-get install xvfb)")
            if opts["mount_private_x11"]:
                mount_private_x11()
            check_socket_directory()
            try:
                workdir = tempfile.mkdtemp(prefix="rea-x11-")
            except OSError:
                workdir = tempfile.mkdtemp(prefix="rea-x11-", dir="/tmp")  # TMPDIR may not exist
            display = Display(workdir)
            display.start()
            record["display"] = ":%d" % display.number
            try:
                x = display.connect()
            except PermissionError as e:
                raise Failure(71, "the display refused rea's cookie: %s" % e)
            except OSError as e:
                raise Failure(70, "cannot connect to the private display: %s" % e)
            try:
                xtest = check_display(x)
            except (OSError, struct.error) as e:
                raise Failure(70, "the private display failed: %s" % e)
            finally:
                x.close()
            if opts["probe"]:
                record["status"] = "ok"
                diagnostic(record)
                return 0
            env = dict(os.environ)
            env.update(display.env())
            hopper = subprocess.Popen(opts["command"], env=env, stdin=subprocess.DEVNULL)
            record["hopper_pid"] = hopper.pid
            await_startup(display, xtest, hopper, opts["socket"], record)
            if record.get("socket_seen"):
                check_ownership(hopper, opts["socket"], record)
            record["status"] = "ready"
            diagnostic(record)
            code = hopper.wait()
            hopper = None
            return code if code >= 0 else 128 - code
        except Exception as e:
            if not isinstance(e, Failure):  # a bug or an environment it cannot use
                e = Failure(79, "the helper failed: %s: %s" % (type(e).__name__, e))
            if record.get("status") == "ready":
                raise  # its one diagnostic line is written
            record.update(status="failed", failure_code=FAILURES[e.code], exit_code=e.code, detail=e.detail)
            diagnostic(record)
            return e.code
    except KeyboardInterrupt:
        if "status" not in record:
            record.update(status="stopped", detail="stopped by signal %d" % (stopping[0] if stopping else 0))
            diagnostic(record)
        return 128 + (stopping[0] if stopping else signal.SIGINT)
    finally:
        for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN)
        if hopper is not None:
            stop_child(hopper)
        if display is not None:
            display.stop()
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
