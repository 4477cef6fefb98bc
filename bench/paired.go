package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"slices"
	"syscall"
	"time"
)

// Comparisons are paired: the two sides run in turns (A B A B ...) and
// the ratio is taken pair by pair, so a comparison holds while the
// machine's speed drifts (other work starting or stopping); the median
// of the pairs is the figure, the minimum and maximum say how noisy the
// machine was.

// spread is the median, minimum and maximum of some figures.
type spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

func spreadOf(v []float64) spread {
	if len(v) == 0 {
		return spread{}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return spread{Median: round(m, 3), Min: round(s[0], 3), Max: round(s[len(s)-1], 3)}
}

func (s spread) String() string {
	if s.Min == s.Max {
		return fmt.Sprintf("%.2f", s.Median)
	}
	return fmt.Sprintf("%.2f (%.2f–%.2f)", s.Median, s.Min, s.Max)
}

// procRun is one run of a program as a whole process, as the kernel
// accounts it.
type procRun struct {
	wall, cpu    time.Duration
	maxRSS       int64   // bytes, the process's peak resident memory
	reportedPeak float64 // bytes, as the program reported it (0: not reported)
}

// runProc runs a program to its end and returns its times, its peak
// memory and what it printed.
func runProc(name string, args ...string) (procRun, []byte, error) {
	var printed bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &printed, &printed
	start := time.Now()
	err := cmd.Run()
	r := procRun{wall: time.Since(start)}
	if cmd.ProcessState != nil {
		r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.maxRSS = ru.Maxrss << 10 // kilobytes on Linux
		}
	}
	return r, printed.Bytes(), err
}

type procRuns []procRun

// procSummary is the median of each figure of some runs.
type procSummary struct {
	WallMs float64 `json:"wallMs"`
	CPUMs  float64 `json:"cpuMs"`
	PeakMB float64 `json:"peakMB"`
}

func (rs procRuns) summary() procSummary {
	var wall, cpu, peak []float64
	for _, r := range rs {
		wall = append(wall, float64(r.wall.Microseconds())/1000)
		cpu = append(cpu, float64(r.cpu.Microseconds())/1000)
		peak = append(peak, float64(r.maxRSS)/(1<<20))
	}
	return procSummary{WallMs: spreadOf(wall).Median, CPUMs: spreadOf(cpu).Median, PeakMB: spreadOf(peak).Median}
}

// wallSpread is the runs' wall times, ms.
func (rs procRuns) wallSpread() spread {
	var wall []float64
	for _, r := range rs {
		wall = append(wall, float64(r.wall.Microseconds())/1000)
	}
	return spreadOf(wall)
}

func (rs procRuns) reportedPeakMedian() float64 {
	var v []float64
	for _, r := range rs {
		if r.reportedPeak > 0 {
			v = append(v, r.reportedPeak)
		}
	}
	return spreadOf(v).Median
}

type pairedRuns struct {
	a, b                procRuns
	wallRatio, cpuRatio spread // a / b
}

// pairRuns runs a and b in turns, n times each, after one warm-up of b
// (a's warm-up is the caller's first run).
func pairRuns(n int, a, b func() (procRun, error)) (pairedRuns, error) {
	var p pairedRuns
	if _, err := b(); err != nil {
		return p, err
	}
	var wall, cpu []float64
	for range n {
		ra, err := a()
		if err != nil {
			return p, err
		}
		rb, err := b()
		if err != nil {
			return p, err
		}
		p.a, p.b = append(p.a, ra), append(p.b, rb)
		wall = append(wall, ra.wall.Seconds()/rb.wall.Seconds())
		cpu = append(cpu, ra.cpu.Seconds()/max(rb.cpu.Seconds(), 1e-6))
	}
	p.wallRatio, p.cpuRatio = spreadOf(wall), spreadOf(cpu)
	return p, nil
}
