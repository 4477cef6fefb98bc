package server

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// serverGCPercent is the garbage collector's GOGC for serve and api
// (unless GOGC is set). They keep little (the built files, the caches)
// and make a few KB of garbage an answer: at Go's default of 100 the
// heap's goal is a few MB and they collect tens of times a second under
// load; 400 collects a quarter as often, for some 15 MB more. Not for
// dev, which keeps whole builds and their JavaScript runtimes.
const serverGCPercent = 400

// Returning memory. The runtime gives memory back to the system only
// down to the heap's goal, which GOGC 400 sets at five times what was
// live at the last collection, and collects on its own only every two
// minutes when nothing allocates: after a burst of connections (each
// with its buffers and goroutine stack, live while it lasts) a quiet
// server would keep the burst's heap for minutes. So every
// returnMemoryEvery, when the server has allocated returnMemoryAfter or
// more since, it collects and gives back all that is free
// (debug.FreeOSMemory): a burst's memory returns within seconds of its
// end, an idle server does nothing, and a busy one adds a collection
// every few seconds to the many it makes. A soft memory limit
// (GOMEMLIMIT) would bound the heap as well, but one low enough to
// matter makes the collector run without pause once the live heap nears
// it, as a large news archive's cached pages can.
const (
	returnMemoryEvery = 10 * time.Second
	returnMemoryAfter = 16 << 20
)

// collectLessGarbage sets serverGCPercent unless GOGC is set, and gives
// memory back after bursts until ctx ends.
func collectLessGarbage(ctx context.Context) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serverGCPercent)
	}
	go func() {
		var m memoryReturner
		tick := time.NewTicker(returnMemoryEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				m.check()
			}
		}
	}()
}

// memoryReturner gives free memory back (see returnMemoryEvery).
type memoryReturner struct {
	allocated uint64 // bytes the heap had allocated when it last gave memory back
}

// check collects and gives free memory back when returnMemoryAfter or
// more has been allocated since it last did; it reports whether it did.
func (m *memoryReturner) check() bool {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	if s[0].Value.Uint64()-m.allocated < returnMemoryAfter {
		return false
	}
	debug.FreeOSMemory()
	metrics.Read(s)
	m.allocated = s[0].Value.Uint64()
	return true
}
