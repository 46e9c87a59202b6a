package native

// DecodeFunctionStarts exposes the LC_FUNCTION_STARTS decoder: the Go
// linker writes no such command, so no fixture exercises it.
var DecodeFunctionStarts = decodeFunctionStarts
