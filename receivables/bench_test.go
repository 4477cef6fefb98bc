package receivables

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/gocarina/gocsv"
)

// generate writes a valid file of n rows: the heading, then accounts that
// vary like real ones (quoted commas, empty optional columns, credits).
func generate(n int) []byte {
	var b bytes.Buffer
	b.Grow(n * 200)
	w := csv.NewWriter(&b)
	var row [ColumnCount]string
	for i, c := range Format.Columns {
		row[i] = c.Name
	}
	_ = w.Write(row[:])
	for i := range n {
		for j, c := range Format.Columns {
			row[j] = c.Example
		}
		row[0] = "CUST-" + strconv.Itoa(1000000+i)
		if i%3 == 0 {
			row[2], row[4], row[12], row[13] = "", "", "", ""
		}
		row[18] = strconv.Itoa(i%100000) + "." + strconv.Itoa(10+i%90)
		row[23] = "-" + strconv.Itoa(i%977)
		_ = w.Write(row[:])
	}
	w.Flush()
	return b.Bytes()
}

// record is what gocsv's reflective decoding needs: one string per column.
type gocsvRecord struct {
	Values [ColumnCount]string `csv:"v" csv[]:"25"`
}

func BenchmarkCompare(b *testing.B) {
	data := generate(200_000)
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			r := csv.NewReader(bytes.NewReader(data))
			r.ReuseRecord = true
			for {
				if _, err := r.Read(); err == io.EOF {
					break
				}
			}
		}
		b.ReportMetric(float64(200_000*b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("validate", func(b *testing.B) {
		for b.Loop() {
			rep, _ := Validate(bytes.NewReader(data), Options{MaxErrors: 10})
			if !rep.Valid {
				b.Fatal(rep.Errors)
			}
		}
		b.ReportMetric(float64(200_000*b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("gocsv-unmarshaller", func(b *testing.B) {
		keys := make([]string, ColumnCount)
		for i := range keys {
			keys[i] = "v[" + strconv.Itoa(i) + "]"
		}
		for b.Loop() {
			r := csv.NewReader(bytes.NewReader(data))
			um, err := gocsv.NewUnmarshaller(r, gocsvRecord{})
			if err != nil {
				b.Fatal(err)
			}
			um.RenormalizeHeaders(func([]string) []string { return keys })
			for {
				v, err := um.Read()
				if err == io.EOF {
					break
				}
				rec := v.(gocsvRecord)
				for i := range rec.Values {
					Format.Columns[i].check(rec.Values[i])
				}
			}
		}
		b.ReportMetric(float64(200_000*b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	_ = fmt.Sprint
	_ = runtime.GC
	_ = time.Now
}
