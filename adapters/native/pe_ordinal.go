package native

import (
	"strconv"
	"strings"
)

// Imports by ordinal. An import table entry may name its function by the
// DLL's export ordinal alone (the high bit of the lookup entry, and the
// ordinal in its low 16 bits), as programs linked against ws2_32 with
// ordinals do, and much code that hides what it imports. Such a slot is
// labelled with the function's name where the ordinal is fixed by a
// published interface, and as Ordinal_N (N decimal, the name Ghidra gives
// it) where it is not; the label's Library is the DLL either way, so
// Ordinal_3 of two DLLs are two imports.
//
// The fixed ordinals are Windows Sockets 1.1's: the specification assigns
// them, and ws2_32.dll and wsock32.dll both export its functions under
// them (accept is 1 in both, WSAStartup 115). Other DLLs' ordinals change
// between builds and are not guessed.

// winsockOrdinals are the Windows Sockets 1.1 functions by ordinal.
var winsockOrdinals = map[uint16]string{
	1: "accept", 2: "bind", 3: "closesocket", 4: "connect", 5: "getpeername", 6: "getsockname",
	7: "getsockopt", 8: "htonl", 9: "htons", 10: "ioctlsocket", 11: "inet_addr", 12: "inet_ntoa",
	13: "listen", 14: "ntohl", 15: "ntohs", 16: "recv", 17: "recvfrom", 18: "select", 19: "send",
	20: "sendto", 21: "setsockopt", 22: "shutdown", 23: "socket",
	51: "gethostbyaddr", 52: "gethostbyname", 53: "getprotobyname", 54: "getprotobynumber",
	55: "getservbyname", 56: "getservbyport", 57: "gethostname",
	101: "WSAAsyncSelect", 102: "WSAAsyncGetHostByAddr", 103: "WSAAsyncGetHostByName",
	104: "WSAAsyncGetProtoByNumber", 105: "WSAAsyncGetProtoByName", 106: "WSAAsyncGetServByPort",
	107: "WSAAsyncGetServByName", 108: "WSACancelAsyncRequest", 109: "WSASetBlockingHook",
	110: "WSAUnhookBlockingHook", 111: "WSAGetLastError", 112: "WSASetLastError",
	113: "WSACancelBlockingCall", 114: "WSAIsBlocking", 115: "WSAStartup", 116: "WSACleanup",
	151: "__WSAFDIsSet",
}

// ordinalName names the import of ordinal n from DLL lib.
func ordinalName(lib string, n uint16) string {
	switch l := strings.ToLower(lib); l {
	case "ws2_32.dll", "ws2_32", "wsock32.dll", "wsock32":
		if name, ok := winsockOrdinals[n]; ok {
			return name
		}
	}
	return "Ordinal_" + strconv.Itoa(int(n))
}
