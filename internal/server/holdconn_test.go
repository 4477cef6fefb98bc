package server

import (
	"io"
	"net"
	"testing"
	"time"
)

// TestClosingDropsWhatIsHeld: a connection closed while it holds part of
// an answer closes at once, sending none of it, even to a client that
// reads nothing (a net.Pipe write waits for its reader).
func TestClosingDropsWhatIsHeld(t *testing.T) {
	server, client := net.Pipe()
	c := &holdingConn{Conn: server}
	c.Hold()
	if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\n")); err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for the client to read")
	}
	if got, err := io.ReadAll(client); len(got) > 0 || err != nil {
		t.Errorf("the client read %q (%v) from a closed connection", got, err)
	}
}
