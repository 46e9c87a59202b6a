//go:build !unix

package replay

import (
	"context"
	"errors"
	"net"
)

// Pipe needs a connected Unix socket pair, which this system lacks.
func (p *Player) Pipe(ctx context.Context) (net.Conn, error) {
	return nil, errors.New("replay: Pipe needs Unix socket pairs")
}
