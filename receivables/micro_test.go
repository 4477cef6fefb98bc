package receivables

import (
	"bytes"
	"encoding/csv"
	"testing"
)

func BenchmarkCheckRow(b *testing.B) {
	r := csv.NewReader(bytes.NewReader(generate(1000)))
	all, _ := r.ReadAll()
	all = all[1:]
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		row := all[i%len(all)]
		for j := range row {
			Format.Columns[j].check(row[j])
		}
	}
}
