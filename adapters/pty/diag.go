//go:build linux

package pty

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"
)

// diagSocket lists the listening TCP sockets (IPv4 and IPv6)
// of rea's own network namespace through the kernel's socket diagnostics
// (NETLINK_SOCK_DIAG, as ss does), asking for the LISTEN state only: the
// kernel then walks its listening hash alone, not the whole socket hash
// that reading /proc/net/tcp walks (about a millisecond however few
// sockets it lists). Each listener comes with its protocol ("tcp" or
// "tcp6"). An error means the diagnostics are not available here (a
// seccomp policy, a kernel without them).
//
// The socket is opened at the first call and kept for the next (opening
// one costs more than a dump); close closes it.
type diagSocket struct {
	fd int
	// record, when set, is given every datagram of a reply as received,
	// with the request's sequence number (a test keeps them as the fuzz
	// corpus).
	record func(seq uint32, datagram []byte)
}

func (d *diagSocket) close() {
	if d.fd > 0 {
		syscall.Close(d.fd)
		d.fd = 0
	}
}

func (d *diagSocket) listeners() ([]protoListener, error) {
	if d.fd <= 0 {
		fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, netlinkSockDiag)
		if err != nil {
			return nil, fmt.Errorf("pty: socket diagnostics: %w", err)
		}
		d.fd = fd
	}
	fd := d.fd
	var out []protoListener
	for i, fam := range []uint8{syscall.AF_INET, syscall.AF_INET6} {
		proto := "tcp"
		if fam == syscall.AF_INET6 {
			proto = "tcp6"
		}
		ls, err := dumpListeners(fd, fam, uint32(i+1), d.record)
		if err != nil {
			d.close() // a reply half read must not be taken for the next one's
			return nil, fmt.Errorf("pty: socket diagnostics (%s): %w", proto, err)
		}
		for _, l := range ls {
			out = append(out, protoListener{proto: proto, listener: l})
		}
	}
	return out, nil
}

// protoListener is a listening socket and its protocol.
type protoListener struct {
	proto string
	listener
}

const (
	netlinkSockDiag   = 4  // NETLINK_SOCK_DIAG
	sockDiagByFamily  = 20 // SOCK_DIAG_BY_FAMILY
	tcpListenState    = 10 // TCP_LISTEN
	inetDiagMsgLen    = 72 // struct inet_diag_msg
	nlmsgHdrLen       = 16
	maxDiagListeners  = 1 << 16
	diagReceiveBuffer = 32 << 10
)

// dumpListeners asks for the listening TCP sockets of family fam and reads
// the reply. The reply is the kernel's, but it is parsed as untrusted
// input: a malformed message is an error, never a panic.
func dumpListeners(fd int, fam uint8, seq uint32, record func(uint32, []byte)) ([]listener, error) {
	req := make([]byte, nlmsgHdrLen+56)
	binary.NativeEndian.PutUint32(req[0:4], uint32(len(req)))
	binary.NativeEndian.PutUint16(req[4:6], sockDiagByFamily)
	binary.NativeEndian.PutUint16(req[6:8], syscall.NLM_F_REQUEST|syscall.NLM_F_DUMP)
	binary.NativeEndian.PutUint32(req[8:12], seq)
	r := req[nlmsgHdrLen:] // struct inet_diag_req_v2
	r[0], r[1] = fam, syscall.IPPROTO_TCP
	binary.NativeEndian.PutUint32(r[4:8], 1<<tcpListenState)
	if err := syscall.Sendto(fd, req, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return nil, err
	}
	buf := make([]byte, diagReceiveBuffer)
	var out []listener
	for {
		n, _, err := syscall.Recvfrom(fd, buf, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return nil, errors.New("empty reply")
		}
		if record != nil {
			record(seq, append([]byte(nil), buf[:n]...))
		}
		var done bool
		if out, done, err = parseDiagReply(buf[:n], seq, out); err != nil || done {
			return out, err
		}
	}
}

// parseDiagReply appends to out the listeners of one datagram b of a dump's
// reply to request seq. done: the datagram ended the dump. b is the
// kernel's, but is parsed as untrusted input: a malformed message is an
// error, never a panic.
func parseDiagReply(b []byte, seq uint32, out []listener) (_ []listener, done bool, err error) {
	for len(b) > 0 {
		if len(b) < nlmsgHdrLen {
			return nil, false, errors.New("short message")
		}
		l := int(binary.NativeEndian.Uint32(b[0:4]))
		typ := binary.NativeEndian.Uint16(b[4:6])
		mseq := binary.NativeEndian.Uint32(b[8:12])
		if l < nlmsgHdrLen || l > len(b) {
			return nil, false, fmt.Errorf("message of %d bytes", l)
		}
		body := b[nlmsgHdrLen:l]
		if a := (l + 3) &^ 3; a <= len(b) {
			b = b[a:]
		} else {
			b = nil
		}
		if mseq != seq {
			continue // not a reply to this request
		}
		switch typ {
		case syscall.NLMSG_DONE:
			return out, true, nil
		case syscall.NLMSG_ERROR:
			if len(body) >= 4 {
				if code := int32(binary.NativeEndian.Uint32(body[0:4])); code < 0 {
					return nil, false, syscall.Errno(-code)
				}
			}
			return nil, false, errors.New("error message")
		case sockDiagByFamily:
		default:
			continue
		}
		if len(body) < inetDiagMsgLen {
			return nil, false, errors.New("short socket message")
		}
		if body[1] != tcpListenState || len(out) >= maxDiagListeners {
			continue
		}
		port := int(binary.BigEndian.Uint16(body[4:6]))
		var ip net.IP
		if body[0] == syscall.AF_INET {
			ip = net.IP(append([]byte(nil), body[8:12]...))
		} else {
			ip = net.IP(append([]byte(nil), body[8:24]...))
		}
		inode := binary.NativeEndian.Uint32(body[68:72])
		out = append(out, listener{addr: ip, port: port, inode: strconv.FormatUint(uint64(inode), 10)})
	}
	return out, false, nil
}
