package zkrecord

import (
	"context"
	"net"
	"time"
)

type netConn = net.Conn

// dialContext dials under ctx and the client's timeout.
func dialContext(ctx context.Context, network, address string, timeout time.Duration) (net.Conn, error) {
	d := net.Dialer{Timeout: timeout}
	return d.DialContext(ctx, network, address)
}
