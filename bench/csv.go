package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

type csvFigures struct {
	BareRowsPerSecond     float64 `json:"bareRowsPerSecond"`
	ValidateRowsPerSecond float64 `json:"validateRowsPerSecond"`
	// Ratio is Validate's speed over the bare read's, the two taken in
	// turns (the benchmark's x-bare), over the rounds; RatioCPU the same
	// in the thread's CPU time (x-bare-cpu), which other work on the
	// machine changes less.
	Ratio    spread `json:"validatePerBare"`
	RatioCPU spread `json:"validatePerBareCpu"`
}

// measureCSV runs the validator benchmark of receivables/ (its bare
// encoding/csv and Validate parts) rounds times and reads its figures
// from the result lines, in Go's benchmark format: name, iterations, then
// value-unit pairs.
func measureCSV(rows, rounds int) (csvFigures, error) {
	b, err := exec.Command("go", "test", "./receivables", "-run", "^$", "-bench", "^BenchmarkValidate$/^(bare-encoding-csv|Validate)$",
		"-benchtime", "3x", "-count", strconv.Itoa(rounds), "-rows", strconv.Itoa(rows)).CombinedOutput()
	if err != nil {
		return csvFigures{}, fmt.Errorf("go test -bench Validate: %v\n%s", err, b)
	}
	var bare, validate, ratio, ratioCPU []float64
	for _, line := range strings.Split(string(b), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 4 {
			continue
		}
		name := fields[0]
		if cut := strings.LastIndex(name, "-"); cut > 0 {
			if _, err := strconv.Atoi(name[cut+1:]); err == nil {
				name = name[:cut] // the -GOMAXPROCS suffix
			}
		}
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				continue
			}
			switch {
			case name == "BenchmarkValidate/bare-encoding-csv" && fields[i+1] == "rows/s":
				bare = append(bare, v)
			case name == "BenchmarkValidate/Validate" && fields[i+1] == "rows/s":
				validate = append(validate, v)
			case name == "BenchmarkValidate/Validate" && fields[i+1] == "x-bare":
				ratio = append(ratio, v)
			case name == "BenchmarkValidate/Validate" && fields[i+1] == "x-bare-cpu":
				ratioCPU = append(ratioCPU, v)
			}
		}
	}
	f := csvFigures{BareRowsPerSecond: spreadOf(bare).Median, ValidateRowsPerSecond: spreadOf(validate).Median, Ratio: spreadOf(ratio), RatioCPU: spreadOf(ratioCPU)}
	if f.BareRowsPerSecond == 0 || f.ValidateRowsPerSecond == 0 || f.Ratio.Median == 0 {
		return f, fmt.Errorf("no rows/s or x-bare figures in the benchmark's output:\n%s", b)
	}
	return f, nil
}

// csvFixFigures are csv fix's runs on a small and a large file.
type csvFixFigures struct {
	Runs []csvFixRun `json:"runs"`
}

type csvFixRun struct {
	FileMB  float64 `json:"fileMB"`
	Rows    int     `json:"rows"`
	Changes int     `json:"changes"`
	WallMs  float64 `json:"wallMs"`
	PeakMB  float64 `json:"peakRssMB"`
}

// fixMemorySlack is how much more a file ten times larger may make csv
// fix's process hold at its peak: it works in constant memory, so the
// difference is the runtime's and the collector's, not the file's.
const fixMemorySlack = 16

func (f csvFixFigures) target() target {
	small, big := f.Runs[0], f.Runs[len(f.Runs)-1]
	return target{
		What: fmt.Sprintf("csv fix in constant memory: peak RSS on a %.0f MB file within %d MB of a %.0f MB file's", big.FileMB, fixMemorySlack, small.FileMB),
		Met:  big.PeakMB <= small.PeakMB+fixMemorySlack,
		Got:  fmt.Sprintf("%.1f MB for %.0f MB, %.1f MB for %.0f MB", big.PeakMB, big.FileMB, small.PeakMB, small.FileMB),
	}
}

// measureCSVFix writes files of the sizes given, each a clerk's file with
// everything csv fix corrects (semicolons, title lines, Excel's
// Accounting format, states written out, group headings, a totals row),
// and runs freightsite csv fix on each as its own process: the copy must
// come out valid (exit 0), and the process's peak memory is the figure.
func measureCSVFix(out io.Writer, bin, tmp string, sizesMB [2]int) (csvFixFigures, error) {
	var f csvFixFigures
	fmt.Fprintf(out, "%-10s %10s %10s %10s %12s\n", "file", "rows", "changes", "wall ms", "peak RSS MB")
	for _, mb := range sizesMB {
		file := filepath.Join(tmp, fmt.Sprintf("fix-%dmb.csv", mb))
		rows, err := writeClerkFile(file, int64(mb)*1_000_000)
		if err != nil {
			return f, err
		}
		st, err := os.Stat(file)
		if err != nil {
			return f, err
		}
		fixed := filepath.Join(tmp, fmt.Sprintf("fix-%dmb-corrected.csv", mb))
		r, printed, err := runProc(bin, "csv", "fix", file, "--out", fixed)
		if err != nil {
			return f, fmt.Errorf("freightsite csv fix on %d MB: %v; it printed:\n%s", mb, err, tail(printed, 20))
		}
		changes := 0
		if first, _, ok := strings.Cut(string(printed), " changes, written to "); ok {
			changes, _ = strconv.Atoi(strings.ReplaceAll(first[strings.LastIndex(first, " ")+1:], ",", ""))
		}
		run := csvFixRun{FileMB: float64(st.Size()) / 1e6, Rows: rows, Changes: changes, WallMs: float64(r.wall.Microseconds()) / 1000, PeakMB: float64(r.maxRSS) / (1 << 20)}
		if run.Changes == 0 {
			return f, errors.New("csv fix reported no changes: " + string(tail(printed, 5)))
		}
		f.Runs = append(f.Runs, run)
		fmt.Fprintf(out, "%-10s %10d %10d %10.0f %12.1f\n", fmt.Sprintf("%.1f MB", run.FileMB), run.Rows, run.Changes, run.WallMs, run.PeakMB)
		os.Remove(file)
		os.Remove(fixed)
	}
	return f, nil
}

// writeClerkFile writes an import file of about size bytes as a clerk's
// Tally export saved by Excel in a region whose list separator is a
// semicolon, and returns its rows.
func writeClerkFile(path string, size int64) (rows int, err error) {
	file, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriter(file)
	n := 0
	write := func(s string) {
		k, _ := w.WriteString(s)
		n += k
	}
	write("Sharma Roadlines Pvt Ltd\r\nOutstanding as on 31-Mar-2026\r\n")
	write("Account Number;Company Name;MC Number;Phone;Fax;Address Line 1;Address Line 2;City;State;Postal Code;Country;Attention;Mailing Address 1;Mailing Address 2;Mailing City;Mailing State;Mailing Postal Code;Mailing Country;Days 1-15;Days 16-30;Days 31-45;Days 46-60;Days 61-75;Days 76-90;Over 91 Days\r\n")
	groups := []string{"MUMBAI", "PUNE", "NAGPUR", "NASHIK"}
	for int64(n) < size-200 {
		if rows%1000 == 0 {
			write(groups[rows/1000%len(groups)] + strings.Repeat(";", 24) + "\r\n")
		}
		state, country := "MH", "IN"
		if rows%3 == 0 {
			state, country = "Maharashtra", "India"
		}
		write(fmt.Sprintf("CUST-%07d;Sharma Roadlines Pvt Ltd;123456;9876543210;;Plot 14, MIDC Industrial Area;Taloja;Navi Mumbai;%s;410208;%s;Accounts Payable;;;;;;; ₹ %d,%03d.50 ; (1,500.00); -   ;12000;0; ₹ 7,300.25 ;0\r\n",
			rows, state, country, 1+rows%99, rows%1000))
		rows++
	}
	write("Grand Total" + strings.Repeat(";", 18) + "1,25,000.00;0;0;0;0;0;0\r\n")
	if err := w.Flush(); err != nil {
		file.Close()
		return rows, err
	}
	return rows, file.Close()
}
