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
// published interface, and where it is not as the DLL's Ordinal_N (N
// decimal, the name Ghidra gives it within the DLL's namespace), written
// "hidden.dll!Ordinal_7" with the DLL's name in lower case (the loader
// does not tell case): every tool that names the callee says which DLL's
// ordinal it is, and ordinal 3 of two DLLs are two imports. The label's
// Library is the DLL either way.
//
// The fixed ordinals are Windows Sockets 1.1's: the specification assigns
// them, and ws2_32.dll and wsock32.dll both export its functions under
// them (accept is 1 in both, WSAStartup 115); and OLE Automation's
// (oleaut32.dll), whose import library in Microsoft's SDK imports by
// ordinal, so programs linked against it decades ago bind to these
// numbers still (SysAllocString is 2, VariantClear 9). Of oleaut32 only
// the runs where mingw-w64's oleaut32.def (its exports in the DLL's order,
// without numbers) and Wine's oleaut32.spec, old and new, agree are
// named; the Var* conversions and the later additions, where Wine's two
// versions differ, stay oleaut32.dll!Ordinal_N. Other DLLs' ordinals change between
// builds and are not guessed.

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

// oleautOrdinals are oleaut32.dll's functions by ordinal (see above).
var oleautOrdinals = map[uint16]string{
	2: "SysAllocString", 3: "SysReAllocString", 4: "SysAllocStringLen", 5: "SysReAllocStringLen",
	6: "SysFreeString", 7: "SysStringLen", 8: "VariantInit", 9: "VariantClear", 10: "VariantCopy",
	11: "VariantCopyInd", 12: "VariantChangeType", 13: "VariantTimeToDosDateTime",
	14: "DosDateTimeToVariantTime", 15: "SafeArrayCreate", 16: "SafeArrayDestroy", 17: "SafeArrayGetDim",
	18: "SafeArrayGetElemsize", 19: "SafeArrayGetUBound", 20: "SafeArrayGetLBound", 21: "SafeArrayLock",
	22: "SafeArrayUnlock", 23: "SafeArrayAccessData", 24: "SafeArrayUnaccessData",
	25: "SafeArrayGetElement", 26: "SafeArrayPutElement", 27: "SafeArrayCopy", 28: "DispGetParam",
	29: "DispGetIDsOfNames", 30: "DispInvoke", 31: "CreateDispTypeInfo", 32: "CreateStdDispatch",
	33: "RegisterActiveObject", 34: "RevokeActiveObject", 35: "GetActiveObject",
	36: "SafeArrayAllocDescriptor", 37: "SafeArrayAllocData", 38: "SafeArrayDestroyDescriptor",
	39: "SafeArrayDestroyData", 40: "SafeArrayRedim",
	146: "DispCallFunc", 147: "VariantChangeTypeEx", 148: "SafeArrayPtrOfIndex", 149: "SysStringByteLen",
	150: "SysAllocStringByteLen",
	160: "CreateTypeLib", 161: "LoadTypeLib", 162: "LoadRegTypeLib", 163: "RegisterTypeLib",
	164: "QueryPathOfRegTypeLib", 165: "LHashValOfNameSys", 166: "LHashValOfNameSysA",
	200: "GetErrorInfo", 201: "SetErrorInfo", 202: "CreateErrorInfo",
	411: "SafeArrayCreateVector", 412: "SafeArrayCopyData", 413: "VectorFromBstr", 414: "BstrFromVector",
	415: "OleIconToCursor", 416: "OleCreatePropertyFrameIndirect", 417: "OleCreatePropertyFrame",
	418: "OleLoadPicture", 419: "OleCreatePictureIndirect", 420: "OleCreateFontIndirect",
	421: "OleTranslateColor",
}

// ordinalName names the import of ordinal n from DLL lib.
func ordinalName(lib string, n uint16) string {
	switch l := strings.ToLower(lib); l {
	case "ws2_32.dll", "ws2_32", "wsock32.dll", "wsock32":
		if name, ok := winsockOrdinals[n]; ok {
			return name
		}
	case "oleaut32.dll", "oleaut32":
		if name, ok := oleautOrdinals[n]; ok {
			return name
		}
	}
	return strings.ToLower(lib) + "!Ordinal_" + strconv.Itoa(int(n))
}
