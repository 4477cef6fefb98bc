package receivables

import (
	"bytes"
	"encoding/csv"
	"flag"
	"io"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gocarina/gocsv"
)

// generatedFile is a valid import file of n rows, made as it is read, so
// tests can stream big files without holding them. Rows vary like real
// ones: quoted commas, empty optional columns, decimals and credits.
type generatedFile struct {
	n, next int
	buf     bytes.Buffer
	w       *csv.Writer
	row     [ColumnCount]string
}

func newGeneratedFile(n int) *generatedFile {
	g := &generatedFile{n: n}
	g.w = csv.NewWriter(&g.buf)
	for i, c := range Format.Columns {
		g.row[i] = c.Name
	}
	_ = g.w.Write(g.row[:])
	return g
}

func (g *generatedFile) Read(p []byte) (int, error) {
	for g.buf.Len() < len(p) && g.next < g.n {
		i := g.next
		for j, c := range Format.Columns {
			g.row[j] = c.Example
		}
		g.row[0] = "CUST-" + strconv.Itoa(1000000+i)
		if i%3 == 0 {
			g.row[2], g.row[4], g.row[12], g.row[13] = "", "", "", ""
		}
		g.row[18] = strconv.Itoa(i%100000) + "." + strconv.Itoa(10+i%90)
		g.row[23] = "-" + strconv.Itoa(i%977)
		_ = g.w.Write(g.row[:])
		g.w.Flush()
		g.next++
	}
	if g.buf.Len() == 0 {
		return 0, io.EOF
	}
	return g.buf.Read(p)
}

// benchRows is the size of BenchmarkValidate's file; `make bench-quick`
// makes it small, so the benchmark is checked in seconds.
var benchRows = flag.Int("rows", 1_000_000, "rows of the file BenchmarkValidate reads")

// BenchmarkValidate compares Validate on a 1,000,000-row file with a bare
// encoding/csv read of the same bytes and with gocsv's reflective struct
// decoding (the way not taken), then shows that Validate's memory does not
// grow with the file: peak heap over 100k and 1M streamed rows. Validate's
// x-bare is the best bare read's time over the best Validate's, the two
// taken in turns, so a machine busy with other work slows both alike;
// x-bare-cpu is the same with the CPU time of the whole process (on
// Linux), which other programs on a shared machine change less: every
// thread's, as Validate reads in one and checks in another (runPiped), so
// it says what the validation costs, where x-bare says how long it takes.
//
//	go test ./receivables -run NONE -bench Validate -benchtime 3x
func BenchmarkValidate(b *testing.B) {
	rows := *benchRows
	data, _ := io.ReadAll(newGeneratedFile(rows))
	bareRead := func() {
		r := csv.NewReader(bytes.NewReader(data))
		r.ReuseRecord = true
		for {
			if _, err := r.Read(); err == io.EOF {
				break
			}
		}
	}
	b.Run("bare-encoding-csv", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			bareRead()
		}
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("Validate", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		var bare, validate, bareCPU, validateCPU best
		for b.Loop() {
			b.StopTimer()
			start, cpu := time.Now(), processCPU()
			bareRead()
			bare.keep(time.Since(start))
			bareCPU.keep(processCPU() - cpu)
			b.StartTimer()
			start, cpu = time.Now(), processCPU()
			rep, err := Validate(bytes.NewReader(data), Options{MaxErrors: DefaultMaxErrors})
			validate.keep(time.Since(start))
			validateCPU.keep(processCPU() - cpu)
			if err != nil || !rep.Valid || rep.Rows != rows {
				b.Fatalf("%v %+v %+v", err, rep.Causes, rep.Errors)
			}
		}
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		b.ReportMetric(bare.ratio(validate), "x-bare")
		if validateCPU > 0 {
			b.ReportMetric(bareCPU.ratio(validateCPU), "x-bare-cpu")
		}
	})
	b.Run("gocsv-reflection", func(b *testing.B) {
		type record struct {
			Values [ColumnCount]string `csv:"v" csv[]:"25"`
		}
		keys := make([]string, ColumnCount)
		for i := range keys {
			keys[i] = "v[" + strconv.Itoa(i) + "]"
		}
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			um, err := gocsv.NewUnmarshaller(csv.NewReader(bytes.NewReader(data)), record{})
			if err != nil {
				b.Fatal(err)
			}
			if err := um.RenormalizeHeaders(func([]string) []string { return keys }); err != nil {
				b.Fatal(err)
			}
			for {
				v, err := um.Read()
				if err == io.EOF {
					break
				}
				rec := v.(record)
				for i := range rec.Values {
					Format.Columns[i].check(rec.Values[i])
				}
			}
		}
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	for _, n := range []int{100_000, rows} {
		b.Run("peak-heap-"+strconv.Itoa(n)+"-rows", func(b *testing.B) {
			var peak uint64
			for b.Loop() {
				peak = max(peak, heapPeak(func() {
					if rep, err := Validate(newGeneratedFile(n), Options{}); err != nil || !rep.Valid {
						b.Fatal(err, rep.Errors)
					}
				}))
			}
			b.ReportMetric(float64(peak), "peak-heap-B")
		})
	}
}

// best is the shortest of the times it keeps.
type best time.Duration

func (b *best) keep(d time.Duration) {
	if *b == 0 || best(d) < *b {
		*b = best(d)
	}
}

// ratio is b's time over o's: above 1 when b is faster.
func (b best) ratio(o best) float64 { return float64(b) / float64(o) }

// processCPU is the CPU time the process has used, all its threads
// (RUSAGE_SELF); 0 where the system cannot say.
func processCPU() time.Duration {
	var use syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &use); err != nil {
		return 0
	}
	return time.Duration(use.Utime.Nano() + use.Stime.Nano())
}

// TestMemoryDoesNotGrowWithFileSize streams 50,000 and 500,000 rows
// through Validate: without the duplicate check the peak heap is the same
// size for both; with it, it grows by what the check keeps of a row (18
// bytes or so, up to twice that at a peak before the collector runs).
func TestMemoryDoesNotGrowWithFileSize(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   Options
		perRow uint64
	}{
		{"no duplicate check", Options{noDuplicates: true}, 0},
		{"duplicate check", Options{}, 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			small := heapPeak(func() { Validate(newGeneratedFile(50_000), tc.opts) })
			big := heapPeak(func() { Validate(newGeneratedFile(500_000), tc.opts) })
			t.Logf("peak heap: %d KB for 50,000 rows, %d KB for 500,000 rows", small>>10, big>>10)
			if grown := tc.perRow * 450_000; big > small+grown+2<<20 || big > 8<<20+grown {
				t.Errorf("peak heap grew from %d KB to %d KB with ten times the rows", small>>10, big>>10)
			}
		})
	}
}

// heapPeak runs f and returns how far the live heap rose above where it
// started, sampled every millisecond.
func heapPeak(f func()) uint64 {
	runtime.GC()
	read := func() uint64 {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	base := read()
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
			if v := read(); v > base && v-base > peak.Load() {
				peak.Store(v - base)
			}
		}
	}()
	f()
	close(done)
	return peak.Load()
}
