// Package ndjson reads newline-delimited JSON from engines rea talks to over
// a pipe or socket (the Ghidra and Hopper bridges), with a bound on the
// length of a line that holds before the line is read into memory.
//
// It imports the standard library only.
package ndjson

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// ErrLineTooLong is returned for a line longer than the bound.
var ErrLineTooLong = errors.New("ndjson: line too long")

// ReadLine reads one line of at most max bytes, without its newline and with
// every carriage return dropped. A longer line fails with ErrLineTooLong
// having read at most max+1 bytes of it plus one buffer; the reader is then
// somewhere inside that line, so callers end the stream. EOF inside a line is
// io.ErrUnexpectedEOF; EOF between lines is io.EOF.
func ReadLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > max+1 { // +1: the newline itself
			return nil, ErrLineTooLong
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return bytes.ReplaceAll(line[:len(line)-1], []byte{'\r'}, nil), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}
