package server

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// TestServerCollectsGarbageLess: serve and api run at serverGCPercent
// unless GOGC says otherwise.
func TestServerCollectsGarbageLess(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, c := range []struct {
		gogc string
		want int
	}{{"", serverGCPercent}, {"100", 100}} {
		t.Setenv("GOGC", c.gogc)
		debug.SetGCPercent(100)
		collectLessGarbage(ctx)
		if got := debug.SetGCPercent(100); got != c.want {
			t.Errorf("GOGC=%q: the server runs at GC percent %d, want %d", c.gogc, got, c.want)
		}
	}
}

// TestMemoryIsReturned: after a burst (100 MB of connections' buffers,
// live while it lasts) the memory returner collects and gives back what
// is free, then has nothing to do until the server allocates again.
func TestMemoryIsReturned(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(serverGCPercent))
	var m memoryReturner
	m.check()
	burst := make([][]byte, 400)
	for i := range burst {
		burst[i] = make([]byte, 256<<10)
	}
	runtime.KeepAlive(burst)
	burst = nil
	if !m.check() {
		t.Fatal("100 MB allocated by a burst: nothing was given back")
	}
	var released [1]metrics.Sample
	released[0].Name = "/memory/classes/heap/released:bytes"
	metrics.Read(released[:])
	if got := released[0].Value.Uint64(); got < 64<<20 {
		t.Errorf("%d MB given back to the system after the burst, want most of its 100 MB", got>>20)
	}
	if m.check() {
		t.Error("collected again with nothing allocated since")
	}
}
