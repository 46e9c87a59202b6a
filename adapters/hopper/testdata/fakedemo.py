#!/usr/bin/python3
"""A stand-in for the Hopper demo under the X11 helper's tests.

Run by the helper as `fakedemo MODE SOCKET` on its private display:
  dialog  shows a window where the demo's dialog is; when it is clicked at
          "Try the Demo" it closes the window and binds SOCKET (a click
          elsewhere exits 9)
  direct  binds SOCKET at once
  exit    exits 3 at once
  odd     shows a window that is not the dialog, and nothing else
  wait    writes SOCKET.started and waits without binding SOCKET (the test
          then binds it from outside the demo's process tree)
It uses the helper's own X11 client, loaded from hopper-demo-x11.py beside it,
but its own copy of the dialog's place and button (PROVIDERS.md §2.2), so a
helper that clicks elsewhere fails.
"""

import importlib.util
import os
import signal
import socket
import struct
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("helper", os.path.join(here, "hopper-demo-x11.py"))
helper = importlib.util.module_from_spec(spec)
spec.loader.exec_module(helper)


def connect():
    n = int(os.environ["DISPLAY"].lstrip(":"))
    x = helper.X11(n, helper.read_xauthority(os.environ["XAUTHORITY"], n))
    x.sock.settimeout(None)  # waits for a click as long as it runs
    return x


def serve(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(1)
    while True:
        signal.pause()


mode, path = sys.argv[1], sys.argv[2]
if mode == "exit":
    sys.exit(3)
if mode == "direct":
    serve(path)
if mode == "wait":
    with open(path + ".started", "w"):
        pass
    while True:
        signal.pause()
x = connect()
if mode == "odd":
    x.create_window(0, 0, 400, 300, 0)
    while True:
        signal.pause()
DIALOG = (189, 370, 901, 284)
CLICK = (305, 632)
wx, wy, ww, wh = DIALOG
wid = x.create_window(wx, wy, ww, wh, 0x4)  # ButtonPress
while True:
    ev = x.event()
    if ev[0] & 0x7F == 4:  # ButtonPress
        rx, ry, ex, ey = struct.unpack_from("<hhhh", ev, 20)
        if (rx, ry) != CLICK or (ex, ey) != (rx - wx, ry - wy):
            sys.exit(9)
        x.send(struct.pack("<BxHI", 4, 2, wid))  # DestroyWindow
        x.sync()
        serve(path)
