// Package gdbremote traces native calls through the GDB Remote Serial
// Protocol: it launches gdbserver (owned through rea/supervisor) with the
// protocol on the server's stdin and stdout, places software breakpoints at
// the procedures the caller names, and reads the argument registers, the
// return address and the return value at each hit. A program built for
// another architecture runs under QEMU's user-mode emulator, whose GDB stub
// speaks the same protocol. It implements [ports.CallTracer].
//
// The protocol client is written here: packet framing with checksums, acks
// and no-ack mode, escapes and run-length decoding, every packet bounded in
// size and never trusted. Registers are found through the server's target
// description (qXfer:features:read), not hard-coded numbers.
//
// gdbremote imports the standard library, rea/ports and rea/supervisor.
package gdbremote
