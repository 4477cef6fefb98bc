package server

import (
	"context"
	"net"
	"sync"
	"sync/atomic"

	"freightsite/formapi"
)

// holdingListener gives each connection a write holder (holdingConn)
// that its requests find in their context (formapi.WriteHolder), so each
// answer leaves in one write.
type holdingListener struct{ net.Listener }

func (l holdingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &holdingConn{Conn: c}, nil
}

// holdingContext is the server's ConnContext: it hands the connection's
// holder to the requests on it.
func holdingContext(ctx context.Context, c net.Conn) context.Context {
	if hc, ok := c.(*holdingConn); ok {
		return formapi.WithWriteHolder(ctx, hc)
	}
	return ctx
}

// holdingConn keeps what is written between Hold and Release and sends it
// in one write on Release. net/http writes an answer whose body outgrows
// its 4 KB buffer in two writes (the headers with the body's start, then
// the rest), and each write is a system call and a TCP push of its own:
// for a page of a few KB, the larger part of what the answer costs the
// server (make bench compares). Whatever is held also leaves before
// the server reads from the connection (a "100 Continue" before the body
// it asks for).
type holdingConn struct {
	net.Conn
	mu   sync.Mutex
	held *[]byte // nil unless holding
	// serving: a request is under way on it (connCount)
	serving atomic.Bool
}

// heldBuffers are the buffers of holding connections, kept between
// answers: an idle connection holds none.
var heldBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// maxHeld is the most a connection holds: past it the held bytes leave
// and the rest of the answer is written as it comes. It bounds what a
// client that does not read (its answers stuck in a full socket) holds
// of the server's memory, and a write saved on an answer this large is
// little beside its copy.
const maxHeld = 64 << 10

func (c *holdingConn) Hold() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held == nil {
		c.held = heldBuffers.Get().(*[]byte)
	}
}

func (c *holdingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held == nil {
		return c.Conn.Write(p)
	}
	if len(*c.held)+len(p) <= maxHeld {
		*c.held = append(*c.held, p...)
		return len(p), nil
	}
	if err := c.sendHeld(); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}

// sendHeld writes what is held, holding on; c.mu is locked.
func (c *holdingConn) sendHeld() error {
	if c.held == nil || len(*c.held) == 0 {
		return nil
	}
	_, err := c.Conn.Write(*c.held)
	*c.held = (*c.held)[:0]
	return err
}

// Release sends what is held and stops holding.
func (c *holdingConn) Release() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	err := c.sendHeld()
	c.stopHolding()
	return err
}

// stopHolding drops what is held and gives the buffer back; c.mu is
// locked.
func (c *holdingConn) stopHolding() {
	if c.held != nil {
		*c.held = (*c.held)[:0]
		heldBuffers.Put(c.held)
		c.held = nil
	}
}

func (c *holdingConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	err := c.sendHeld()
	c.mu.Unlock()
	if err != nil {
		return 0, err
	}
	return c.Conn.Read(p)
}

// Close drops what is held: a connection closed in the middle of an
// answer (a server stopping past its deadline) sends no more of it, and
// closing never waits for a client to read.
func (c *holdingConn) Close() error {
	err := c.Conn.Close() // first: a write under way fails and lets go of c.mu
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopHolding()
	return err
}

// CloseWrite half-closes the connection as net/http does before closing
// one whose request body it left unread, so its answer (a 413) reaches
// the client ahead of a reset.
func (c *holdingConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
