package server

import (
	"fmt"
	"net"
	"os"
	"strconv"
)

// listen returns the socket to serve on: the one socket activation hands
// over (systemd's LISTEN_FDS, deploy/freightsite-api@.socket), or a new one
// on addr. A handed-over socket outlives the process, so a restart refuses
// no connection: they wait in its queue until the next process accepts.
func listen(addr string) (net.Listener, error) {
	if os.Getenv("LISTEN_PID") == strconv.Itoa(os.Getpid()) && os.Getenv("LISTEN_FDS") != "" {
		if n := os.Getenv("LISTEN_FDS"); n != "1" {
			return nil, &UsageError{fmt.Errorf("LISTEN_FDS=%s: socket activation must hand over exactly one socket", n)}
		}
		for _, v := range []string{"LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"} {
			os.Unsetenv(v) // not for the processes this one starts
		}
		f := os.NewFile(3, "socket from LISTEN_FDS")
		defer f.Close()
		ln, err := net.FileListener(f)
		if err != nil {
			return nil, &UsageError{fmt.Errorf("LISTEN_FDS: file descriptor 3 is not a listening socket: %w", err)}
		}
		return ln, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, &UsageError{fmt.Errorf("listening on %s: %w", addr, err)}
	}
	return ln, nil
}
